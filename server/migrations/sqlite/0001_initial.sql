-- canvasc serve: accounts, keys, agents, versions, sessions, run logs and uploaded files.
-- Tokens and keys are stored as SHA-256 hashes; passwords as Argon2 PHC strings.
CREATE TABLE users (
    id VARCHAR(32) PRIMARY KEY,
    email VARCHAR(255) NOT NULL UNIQUE,
    nickname VARCHAR(255) NOT NULL,
    password_hash VARCHAR(255) NOT NULL,
    create_time BIGINT NOT NULL,
    update_time BIGINT NOT NULL
);
CREATE TABLE login_tokens (
    token_hash VARCHAR(64) PRIMARY KEY,
    user_id VARCHAR(32) NOT NULL,
    create_time BIGINT NOT NULL
);
CREATE TABLE api_keys (
    token_hash VARCHAR(64) PRIMARY KEY,
    beta_hash VARCHAR(64) NOT NULL UNIQUE,
    user_id VARCHAR(32) NOT NULL,
    token_hint VARCHAR(64) NOT NULL,
    beta_hint VARCHAR(64) NOT NULL,
    create_time BIGINT NOT NULL
);
CREATE INDEX api_keys_user ON api_keys (user_id);
CREATE TABLE agents (
    id VARCHAR(32) PRIMARY KEY,
    user_id VARCHAR(32) NOT NULL,
    title VARCHAR(255) NOT NULL,
    description TEXT,
    avatar TEXT,
    dsl TEXT NOT NULL,
    canvas_type VARCHAR(64) NOT NULL,
    canvas_category VARCHAR(64) NOT NULL,
    permission VARCHAR(16) NOT NULL,
    tags VARCHAR(512) NOT NULL,
    create_time BIGINT NOT NULL,
    update_time BIGINT NOT NULL
);
CREATE INDEX agents_user ON agents (user_id);
CREATE TABLE agent_versions (
    id VARCHAR(32) PRIMARY KEY,
    agent_id VARCHAR(32) NOT NULL,
    title VARCHAR(600) NOT NULL,
    description TEXT,
    dsl TEXT NOT NULL,
    released BIGINT NOT NULL,
    create_time BIGINT NOT NULL,
    update_time BIGINT NOT NULL
);
CREATE INDEX agent_versions_agent ON agent_versions (agent_id);
CREATE TABLE agent_sessions (
    id VARCHAR(32) PRIMARY KEY,
    agent_id VARCHAR(32) NOT NULL,
    tenant_id VARCHAR(32) NOT NULL,
    user_id VARCHAR(255) NOT NULL,
    name VARCHAR(255) NOT NULL,
    source VARCHAR(32) NOT NULL,
    version_title VARCHAR(600),
    state TEXT NOT NULL,
    create_time BIGINT NOT NULL,
    update_time BIGINT NOT NULL
);
CREATE INDEX agent_sessions_agent ON agent_sessions (agent_id);
CREATE TABLE run_logs (
    message_id VARCHAR(64) PRIMARY KEY,
    agent_id VARCHAR(32) NOT NULL,
    tenant_id VARCHAR(32) NOT NULL,
    session_id VARCHAR(32) NOT NULL,
    program VARCHAR(16) NOT NULL,
    trace TEXT NOT NULL,
    create_time BIGINT NOT NULL
);
CREATE TABLE uploaded_files (
    id VARCHAR(32) PRIMARY KEY,
    tenant_id VARCHAR(32) NOT NULL,
    agent_id VARCHAR(32) NOT NULL,
    name VARCHAR(1024) NOT NULL,
    size BIGINT NOT NULL,
    extension VARCHAR(64) NOT NULL,
    mime_type VARCHAR(255) NOT NULL,
    content BLOB NOT NULL,
    create_time BIGINT NOT NULL
);
