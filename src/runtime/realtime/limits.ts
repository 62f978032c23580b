// Realtime limits (spec: Limits / Realtime) and close codes (spec: Events).
// They stay on whatever EASEL_RATELIMIT_ENABLED says (CONTRACT §9).

export const REALTIME_LIMITS = {
  connectionsPerCanvas: 30,
  /** One person's sockets on one canvas (tabs, devices): no one viewer can take the canvas's slots. */
  connectionsPerPerson: 5,
  /** Slots of the 30 only owners and editors may fill: whoever runs the canvas can always connect. */
  connectionsReservedForManagers: 5,
  publishesPerMinute: 100,
  /** subscribe and presence frames share their own bucket, so a presence poll cannot starve publishing. */
  controlFramesPerMinute: 100,
  frameBytes: 16 * 1024,
  channelNameBytes: 128,
  channelsPerConnection: 64,
} as const;

/**
 * Bun's hard cap on one incoming frame: past it Bun closes the socket (1009)
 * without our handler seeing the frame. Frames between 16 KiB and this cap get
 * a MESSAGE_TOO_LARGE error frame and the socket stays open.
 */
export const MAX_PAYLOAD_BYTES = 1024 * 1024;

export const CLOSE = {
  goingAway: 1001,
  accessLost: 4401,
  capabilityDisabled: 4403,
  tooManyConnections: 4429,
  // The server failed handling a frame (the standard code).
  internalError: 1011,
} as const;
