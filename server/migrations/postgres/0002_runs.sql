-- The fencing token of a session's writes: the lease token of the run that holds the session.
-- A turn's save names the token its run was started under and is refused when another run
-- has claimed the session since (a replica that lost its lease must not save over it).
ALTER TABLE agent_sessions ADD COLUMN lease_token VARCHAR(32) NOT NULL DEFAULT '';
-- The runs of a server coordinated in process (no Redis): written when a run starts, so a
-- crash leaves its trace (marked interrupted at the next start), and with the run's last
-- checkpoint, so `resume_from` goes on from it after a restart. With Redis, Redis holds these.
CREATE TABLE runs (
    run_id VARCHAR(64) PRIMARY KEY,
    session_id VARCHAR(32) NOT NULL,
    canvas_id VARCHAR(32) NOT NULL,
    tenant_id VARCHAR(32) NOT NULL,
    mode VARCHAR(16) NOT NULL,
    status VARCHAR(16) NOT NULL,
    failure_reason TEXT NOT NULL,
    user_message TEXT NOT NULL,
    started_at BIGINT NOT NULL,
    finished_at BIGINT NOT NULL,
    checkpoint TEXT
);
CREATE INDEX runs_session ON runs (session_id, started_at);
CREATE INDEX runs_status ON runs (status);
