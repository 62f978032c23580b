/**
 * What a feature does besides answering requests: recovery and timers at
 * start, cleanup at stop. createApp starts features in the order it lists
 * them and stops them in reverse, before the database closes.
 */
export interface Lifecycle {
  start?(): void | Promise<void>;
  stop?(): void | Promise<void>;
}
