/**
 * One connection factory per store adapter, so the same contract suite runs against all of
 * them: ioredis on the shared Redis, @upstash/redis through the REST shim in front of the
 * same Redis, the in-process store, and ioredis on a private three-node Redis Cluster.
 */
import { Cluster, Redis } from 'ioredis';
import { Redis as UpstashRedis } from '@upstash/redis';
import { createIoredisStore } from '../src/ioredis-store';
import { createMemoryStore } from '../src/memory-store';
import type { ScriptStore } from '../src/store';
import { createUpstashStore } from '../src/upstash-store';
import { startRedisCluster } from './redis-servers';
import { SHIM_TOKEN, startUpstashShim } from './upstash-rest-shim';

export interface StoreHandle {
  store: ScriptStore;
  close(): Promise<void>;
}

export interface StoreFactory {
  name: string;
  open(redisUrl: string): Promise<StoreHandle>;
}

export const ioredisFactory: StoreFactory = {
  name: 'ioredis',
  async open(redisUrl) {
    const client = new Redis(redisUrl);
    return { store: createIoredisStore(client), close: async () => void client.disconnect() };
  },
};

export const upstashFactory: StoreFactory = {
  name: 'upstash (REST shim)',
  async open(redisUrl) {
    const shim = await startUpstashShim(redisUrl);
    const client = new UpstashRedis({
      url: shim.url,
      token: SHIM_TOKEN,
      automaticDeserialization: false,
      enableTelemetry: false,
      retry: false,
    });
    return { store: createUpstashStore(client), close: () => shim.close() };
  },
};

export const memoryFactory: StoreFactory = {
  name: 'in-process',
  async open() {
    return { store: createMemoryStore(), close: async () => {} };
  },
};

export const clusterFactory: StoreFactory = {
  name: 'cluster (3 nodes, ioredis)',
  async open() {
    const servers = await startRedisCluster();
    const client = new Cluster(servers.ports.map((port) => ({ host: '127.0.0.1', port })));
    return {
      store: createIoredisStore(client),
      async close() {
        await client.quit();
        await servers.stop();
      },
    };
  },
};

export const allFactories = [ioredisFactory, upstashFactory, memoryFactory, clusterFactory];
