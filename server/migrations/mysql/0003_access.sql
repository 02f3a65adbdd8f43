-- Access (issue 39): administrators and invitations, API keys revoked by id, login tokens
-- swept per user.
ALTER TABLE users ADD COLUMN is_admin BIGINT NOT NULL DEFAULT 0;
-- One row at most: the account that became the administrator by being the first. The primary
-- key decides the race of two first registrations. A database that already has users makes
-- its oldest account the administrator.
CREATE TABLE first_admin (
    slot BIGINT PRIMARY KEY,
    user_id VARCHAR(32) NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;
INSERT INTO first_admin (slot, user_id) SELECT 1, id FROM users ORDER BY create_time, id LIMIT 1;
UPDATE users SET is_admin = 1 WHERE id IN (SELECT user_id FROM first_admin);
-- Invitation codes are stored as SHA-256 hashes, like every other credential.
CREATE TABLE invitations (
    code_hash VARCHAR(64) PRIMARY KEY,
    id VARCHAR(32) NOT NULL UNIQUE,
    created_by VARCHAR(32) NOT NULL,
    email VARCHAR(255),
    create_time BIGINT NOT NULL,
    expire_time BIGINT NOT NULL,
    used_by VARCHAR(32),
    used_time BIGINT
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;
-- Keys get an id to list and revoke them by; existing keys take the head of their hash.
ALTER TABLE api_keys ADD COLUMN id VARCHAR(32);
UPDATE api_keys SET id = SUBSTR(token_hash, 1, 32);
CREATE UNIQUE INDEX api_keys_id ON api_keys (id);
CREATE INDEX login_tokens_user ON login_tokens (user_id);
