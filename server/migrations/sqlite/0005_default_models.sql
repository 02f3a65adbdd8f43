-- A tenant's default models (PATCH /api/v1/models/default), by RAGFlow's model type (chat,
-- embedding, …): the llm_id a run's LLM with none of its own uses.
CREATE TABLE tenant_default_models (
    tenant_id VARCHAR(32) NOT NULL,
    model_type VARCHAR(16) NOT NULL,
    llm_id VARCHAR(512) NOT NULL,
    update_time BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, model_type)
);
