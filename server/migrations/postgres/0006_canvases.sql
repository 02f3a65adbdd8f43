-- Sessions keep their canvas by reference: the canvas a session started from (its agent's DSL,
-- run state reset) is stored once per agent and content, and a session's state holds only what
-- its runs changed in it (`dsl_patch`, an RFC 6902 patch against the canvas). A canvas belongs
-- to its agent and goes with it.
CREATE TABLE canvases (
    id VARCHAR(64) PRIMARY KEY,
    agent_id VARCHAR(32) NOT NULL,
    dsl TEXT NOT NULL,
    create_time BIGINT NOT NULL
);
CREATE INDEX canvases_agent ON canvases (agent_id);
ALTER TABLE agent_sessions ADD COLUMN canvas_id VARCHAR(64);
