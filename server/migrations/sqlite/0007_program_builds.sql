-- Publishing builds: every released version's canvas is compiled into a program bundle once per
-- program key (its fingerprint and the engine version), by whichever replica claims the build
-- first; the claim is a lease (owner, lease_until) another replica takes over once it expires.
-- A version names the program its canvas builds into.
CREATE TABLE program_builds (
    program_key VARCHAR(160) PRIMARY KEY,
    fingerprint VARCHAR(100) NOT NULL,
    dsl TEXT NOT NULL,
    state VARCHAR(16) NOT NULL,
    error TEXT,
    log TEXT,
    owner VARCHAR(64),
    lease_until BIGINT,
    attempts INTEGER NOT NULL DEFAULT 0,
    queued_at BIGINT NOT NULL,
    started_at BIGINT,
    finished_at BIGINT
);
CREATE INDEX program_builds_state ON program_builds (state);
ALTER TABLE agent_versions ADD COLUMN program_key VARCHAR(160);
