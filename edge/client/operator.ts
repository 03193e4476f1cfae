/** The operator console's one script: each component enhances the element that names it. */
import { initAll, onReady } from './core/modules';
import { fareConsole } from './operator/fare-console';
import { queueIdSearch } from './operator/queue-id-search';
import { roomConsole } from './operator/room-console';

onReady(() => initAll({ 'room-console': roomConsole, 'fare-console': fareConsole, 'queue-id-search': queueIdSearch }));
