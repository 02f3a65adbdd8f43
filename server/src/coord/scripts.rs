//! The Lua scripts that make the lease safe: each reads the holder's token and acts in the
//! same atomic step, so a replica whose lease expired and was taken cannot extend, release
//! or end the newer run's lease. redis-rs sends them by `EVALSHA` (loading on `NOSCRIPT`).

/// KEYS: lease, cancel key, the session's queue of waiters (a hash: ticket → alive until, ms).
/// ARGV: token, TTL ms. Takes the free lease (or keeps one the token holds) and clears a cancel
/// request left from an earlier run of the task. A free lease goes to the session's waiting
/// requests (`multitask_strategy` enqueue, interrupt, rollback) before anyone else.
/// 1 taken, 0 busy.
pub const ACQUIRE: &str = r"
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then
  return 0
end
if not holder then
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  for _, alive in ipairs(redis.call('HVALS', KEYS[3])) do
    if tonumber(alive) > now then
      return 0
    end
  end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('DEL', KEYS[2])
return 1
";

/// KEYS: the session's queue (a sorted set: ticket by rank), its waiters' liveness (a hash:
/// ticket → alive until, ms), the lease, the cancel key. ARGV: ticket, rank, alive ms, token,
/// lease TTL ms. Puts the ticket in the queue (at its first rank) and marks it alive, drops the
/// waiters at the head that stopped refreshing, and when the ticket is the first live waiter
/// and the lease is free, takes the lease for the token and leaves the queue. 1 taken, 0 not
/// yet.
pub const QUEUE_CLAIM: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local alive_ms = tonumber(ARGV[3])
redis.call('ZADD', KEYS[1], 'NX', ARGV[2], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], now + alive_ms)
redis.call('PEXPIRE', KEYS[1], alive_ms)
redis.call('PEXPIRE', KEYS[2], alive_ms)
while true do
  local head = redis.call('ZRANGE', KEYS[1], 0, 0)[1]
  if not head then
    return 0
  end
  if tonumber(redis.call('HGET', KEYS[2], head) or '0') > now then
    if head ~= ARGV[1] then
      return 0
    end
    break
  end
  redis.call('ZREM', KEYS[1], head)
  redis.call('HDEL', KEYS[2], head)
end
local holder = redis.call('GET', KEYS[3])
if holder and holder ~= ARGV[4] then
  return 0
end
redis.call('SET', KEYS[3], ARGV[4], 'PX', ARGV[5])
redis.call('DEL', KEYS[4])
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
return 1
";

/// KEYS: lease, rollback mark. ARGV: the mark's TTL s. Marks the lease's holder, if any, as
/// the run whose turn is discarded. 1 marked, 0 nobody holds the session.
pub const MARK_ROLLBACK: &str = r"
local holder = redis.call('GET', KEYS[1])
if not holder then
  return 0
end
redis.call('SET', KEYS[2], holder, 'EX', ARGV[1])
return 1
";

/// KEYS: lease. ARGV: token, TTL ms. Extends the token's lease; re-takes it when it is gone
/// (expired, or lost with a Redis restart) and nobody took it since. 1 held, 0 another holds.
pub const REFRESH: &str = r"
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if holder then
  return 0
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
";

/// KEYS: lease. ARGV: token. Deletes the lease only while the token holds it. 1 released.
pub const RELEASE: &str = r"
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
";

/// KEYS: run record, lease, checkpoint. ARGV: record TTL s, token, `1` to keep the checkpoint
/// (the run may be resumed) or `0` to drop it, then field/value pairs. Writes the run's end and
/// releases the lease if the token still holds it. 1 released, 0 not held.
pub const FINISH: &str = r"
redis.call('HSET', KEYS[1], unpack(ARGV, 4))
redis.call('EXPIRE', KEYS[1], ARGV[1])
if ARGV[3] == '0' then
  redis.call('DEL', KEYS[3])
end
if redis.call('GET', KEYS[2]) == ARGV[2] then
  return redis.call('DEL', KEYS[2])
end
return 0
";

/// KEYS: the tenant's running runs (a sorted set: slot → until, ms), its runs of this minute,
/// its tokens of today. ARGV: slot, now ms, slot TTL ms, concurrent limit, per-minute limit,
/// tokens-per-day limit, the minute key's TTL s (0 for a limit: none). Checks the day's
/// tokens, the minute's runs and the running runs, in that order, and admits the run only when
/// all are under their limits: it then counts in the minute and holds its slot.
/// `{0, 0}` admitted, `{1, used}` tokens, `{2, 0}` per minute, `{3, 0}` concurrent.
pub const QUOTA_ADMIT: &str = r"
local now = tonumber(ARGV[2])
local used = tonumber(redis.call('GET', KEYS[3]) or '0')
local limit = tonumber(ARGV[6])
if limit > 0 and used >= limit then
  return {1, used}
end
local started = tonumber(redis.call('GET', KEYS[2]) or '0')
local per_minute = tonumber(ARGV[5])
if per_minute > 0 and started >= per_minute then
  return {2, 0}
end
local concurrent = tonumber(ARGV[4])
if concurrent > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
  if redis.call('ZCARD', KEYS[1]) >= concurrent then
    return {3, 0}
  end
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
end
if per_minute > 0 then
  redis.call('INCR', KEYS[2])
  redis.call('EXPIRE', KEYS[2], ARGV[7])
end
return {0, 0}
";

/// KEYS: the tenant's running runs, the admitted minute's runs. ARGV: slot, `1` when the run
/// never started (its minute's count goes back down). Frees the run's slot.
pub const QUOTA_RELEASE: &str = r"
redis.call('ZREM', KEYS[1], ARGV[1])
if ARGV[2] == '1' and tonumber(redis.call('GET', KEYS[2]) or '0') > 0 then
  redis.call('DECR', KEYS[2])
end
return 1
";

/// A webhook's rate limit: a token bucket in a hash with RAGFlow's fields (`tokens`,
/// `timestamp`), refilled for the time since the last take, so RAGFlow's replicas and these
/// share one limit. KEYS: bucket. ARGV: capacity, tokens per second, now (s), cost. A refusal
/// stores nothing. `{1, left}` taken, `{0, left}` refused (`left` as text: Redis would round a
/// Lua number to an integer).
pub const TOKEN_BUCKET: &str = r#"
local capacity, per_second = tonumber(ARGV[1]), tonumber(ARGV[2])
local now, cost = tonumber(ARGV[3]), tonumber(ARGV[4])
local stored = redis.call("HMGET", KEYS[1], "tokens", "timestamp")
local left, since = capacity, now
if tonumber(stored[1]) ~= nil then
    left, since = tonumber(stored[1]), tonumber(stored[2]) or now
end
left = math.min(capacity, left + math.max(0, now - since) * per_second)
if left < cost then
    return {0, tostring(left)}
end
left = left - cost
redis.call("HSET", KEYS[1], "tokens", left, "timestamp", now)
redis.call("EXPIRE", KEYS[1], math.ceil(2 * capacity / per_second))
return {1, tostring(left)}
"#;
