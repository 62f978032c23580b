// Who gets one of a canvas's realtime connections (spec: Limits / Realtime,
// 30 per canvas; issue 23 item 15: 5 per person, the last 5 for owners and
// editors). Pure: both coordination adapters ask it, the Redis one through
// the same rule written in Lua (redis/scripts.ts CLAIM_SLOT) because there
// the count and the claim must be one atomic step.
import { REALTIME_LIMITS } from './limits.ts';

/** Why a new socket gets no slot: the canvas is full, the rest is held for managers, or this person has enough. */
export type SlotRefusal = 'canvas' | 'reserved' | 'person';

/** `open`: the canvas's sockets on every node; `mine`: this person's among them. */
export function slotRefusal(open: number, mine: number, manager: boolean): SlotRefusal | null {
  const { connectionsPerCanvas, connectionsPerPerson, connectionsReservedForManagers } = REALTIME_LIMITS;
  if (open >= connectionsPerCanvas) return 'canvas';
  if (!manager && open >= connectionsPerCanvas - connectionsReservedForManagers) return 'reserved';
  if (mine >= connectionsPerPerson) return 'person';
  return null;
}

/** The 4429 close reason. */
export function slotRefusalReason(refusal: SlotRefusal): string {
  const { connectionsPerCanvas, connectionsPerPerson, connectionsReservedForManagers } = REALTIME_LIMITS;
  switch (refusal) {
    case 'canvas':
      return `a canvas has at most ${connectionsPerCanvas} realtime connections`;
    case 'reserved':
      return `the last ${connectionsReservedForManagers} realtime connections of a canvas are kept for its owners and editors`;
    case 'person':
      return `one person has at most ${connectionsPerPerson} realtime connections to a canvas`;
  }
}
