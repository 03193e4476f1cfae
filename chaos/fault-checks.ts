/** Every check a fault run must pass, and the one context they read (chaos/checks/). */
import type { Check } from './checks/check';
import { eventCheck, type EventContext } from './checks/events';
import { moneyCheck, type MoneyContext } from './checks/money';
import { capCheck, settingsCheck, type RoomContext } from './checks/room';
import { seatCheck, type SeatContext } from './checks/seats';

export type FaultCheckContext = SeatContext & EventContext & MoneyContext & RoomContext;

export const FAULT_CHECKS: Check<FaultCheckContext>[] = [seatCheck, moneyCheck, eventCheck, capCheck, settingsCheck];

/** The table's columns, in order. */
export const CHECK_NAMES = FAULT_CHECKS.map((check) => check.name);
