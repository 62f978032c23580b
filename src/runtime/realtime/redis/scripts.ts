// The steps that must be atomic across nodes, as Lua that Redis runs alone
// (no other node's command lands between a script's reads and its writes):
// two nodes can never both take a canvas's 30th slot, or both announce a
// person's join. Sent whole with EVAL rather than EVALSHA: they are short
// and off the message path, and one command per step keeps each node's
// commands in the order it issued them (an EVALSHA refused after a Redis
// restart would be retried out of order). Key and entry formats: keys.ts.

const ACTOR_OF = `
local function actorOf(entry)
  local a = string.find(entry, '\\t', 1, true)
  if not a then return nil end
  local b = string.find(entry, '\\t', a + 1, true)
  if not b then return nil end
  return string.sub(entry, a + 1, b - 1)
end
`;

/**
 * KEYS: slots hash, the node's key set. ARGV: field, actorId, manager (1/0),
 * per canvas, per person, reserved for managers. Answers `ok` (the slot is
 * taken) or the refusal: the rule of slots.ts, counted over every node.
 */
export const CLAIM_SLOT = `
local held = redis.call('HVALS', KEYS[1])
local open = #held
local perCanvas = tonumber(ARGV[4])
if open >= perCanvas then return 'canvas' end
if ARGV[3] ~= '1' and open >= perCanvas - tonumber(ARGV[6]) then return 'reserved' end
local mine = 0
for _, actor in ipairs(held) do
  if actor == ARGV[2] then mine = mine + 1 end
end
if mine >= tonumber(ARGV[5]) then return 'person' end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('SADD', KEYS[2], KEYS[1])
return 'ok'
`;

/**
 * KEYS: presence hash, the node's key set. ARGV: field, actorId, name.
 * Answers 1 when the person had no socket on the channel on any node (the
 * caller announces `join`), else 0. A field already there (a node putting
 * its entries back) is left as it is.
 */
export const ARRIVE = `${ACTOR_OF}
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 0 end
local first = 1
for _, entry in ipairs(redis.call('HVALS', KEYS[1])) do
  if actorOf(entry) == ARGV[2] then first = 0 break end
end
local seq = redis.call('HINCRBY', KEYS[1], '#seq', 1)
redis.call('HSET', KEYS[1], ARGV[1], seq .. '\\t' .. ARGV[2] .. '\\t' .. ARGV[3])
redis.call('SADD', KEYS[2], KEYS[1])
return first
`;

/**
 * KEYS: presence hash. ARGV: field. Answers the removed entry when it was the
 * person's last socket on the channel anywhere (the caller announces
 * `leave`), else nil. The hash goes when only its counter is left.
 */
export const DEPART = `${ACTOR_OF}
local gone = redis.call('HGET', KEYS[1], ARGV[1])
if not gone then return false end
redis.call('HDEL', KEYS[1], ARGV[1])
local actor = actorOf(gone)
local left = 0
for _, entry in ipairs(redis.call('HVALS', KEYS[1])) do
  local other = actorOf(entry)
  if other then
    if other == actor then return false end
    left = left + 1
  end
end
if left == 0 then redis.call('DEL', KEYS[1]) end
return gone
`;

/**
 * KEYS: the nodes sorted set, the dead node's key set. ARGV: node id, now,
 * the presence key prefix. Removes every slot and presence entry of the node
 * unless its deadline moved past `now` meanwhile (it came back). Answers
 * [presence key, entry, …]: one pair per person who was only on that node,
 * whose `leave` the caller sends to every node.
 */
export const REAP = `${ACTOR_OF}
local deadline = redis.call('ZSCORE', KEYS[1], ARGV[1])
if deadline and tonumber(deadline) > tonumber(ARGV[2]) then return {} end
local mine = ARGV[1] .. '|'
local prefix = ARGV[3]
local leaves = {}
for _, key in ipairs(redis.call('SMEMBERS', KEYS[2])) do
  local all = redis.call('HGETALL', key)
  local gone = {}
  local order = {}
  for i = 1, #all, 2 do
    if string.sub(all[i], 1, #mine) == mine then
      redis.call('HDEL', key, all[i])
      local actor = actorOf(all[i + 1])
      if actor and not gone[actor] then
        gone[actor] = all[i + 1]
        table.insert(order, actor)
      end
    end
  end
  if string.sub(key, 1, #prefix) == prefix then
    local still = {}
    local left = 0
    for _, entry in ipairs(redis.call('HVALS', key)) do
      local actor = actorOf(entry)
      if actor then
        still[actor] = true
        left = left + 1
      end
    end
    for _, actor in ipairs(order) do
      if not still[actor] then
        table.insert(leaves, key)
        table.insert(leaves, gone[actor])
      end
    end
    if left == 0 then redis.call('DEL', key) end
  end
end
redis.call('DEL', KEYS[2])
redis.call('ZREM', KEYS[1], ARGV[1])
return leaves
`;
