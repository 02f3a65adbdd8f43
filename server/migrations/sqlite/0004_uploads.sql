-- Uploads (issue 39): an upload belongs to the session that first ran with it, and goes with
-- that session (or its agent); one never attached expires (`--upload-ttl`).
ALTER TABLE uploaded_files ADD COLUMN session_id VARCHAR(32);
CREATE INDEX uploaded_files_session ON uploaded_files (session_id);
CREATE INDEX uploaded_files_agent ON uploaded_files (agent_id);
CREATE INDEX uploaded_files_unattached ON uploaded_files (create_time);
