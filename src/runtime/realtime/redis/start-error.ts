/** Redis (EASEL_REDIS_URL) could not be used at start: the server refuses to start, with this one line. */
export class RedisUnavailableAtStart extends Error {}
