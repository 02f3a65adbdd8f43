//! The Lua scripts that make the lease safe: each reads the holder's token and acts in the
//! same atomic step, so a replica whose lease expired and was taken cannot extend, release
//! or end the newer run's lease. redis-rs sends them by `EVALSHA` (loading on `NOSCRIPT`).

/// KEYS: lease, cancel key. ARGV: token, TTL ms. Takes the free lease (or keeps one the token
/// holds) and clears a cancel request left from an earlier run of the task. 1 taken, 0 busy.
pub const ACQUIRE: &str = r"
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then
  return 0
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('DEL', KEYS[2])
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
