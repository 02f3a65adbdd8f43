//! A tenant's default models (`PATCH /api/v1/models/default`), one llm_id per RAGFlow model
//! type, as RAGFlow keeps them on its tenant row (`llm_id`, `embd_id`, …).

use super::{text, Store, StoreError};

impl Store {
    /// Sets (or with `None` clears) `tenant_id`'s default model of `model_type`.
    pub async fn set_default_model(
        &self,
        tenant_id: &str,
        model_type: &str,
        llm_id: Option<&str>,
        now: i64,
    ) -> Result<(), StoreError> {
        let mut tx = self.begin().await?;
        let q =
            self.sql("DELETE FROM tenant_default_models WHERE tenant_id = ? AND model_type = ?");
        sqlx::query(&q)
            .bind(tenant_id)
            .bind(model_type)
            .execute(&mut *tx)
            .await?;
        if let Some(llm_id) = llm_id {
            let q = self.sql(
                "INSERT INTO tenant_default_models (tenant_id, model_type, llm_id, update_time) \
                 VALUES (?, ?, ?, ?)",
            );
            sqlx::query(&q)
                .bind(tenant_id)
                .bind(model_type)
                .bind(llm_id)
                .bind(now)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// `tenant_id`'s default models: `(model type, llm_id)` by type.
    pub async fn default_models(
        &self,
        tenant_id: &str,
    ) -> Result<Vec<(String, String)>, StoreError> {
        let q = self.sql(
            "SELECT model_type, llm_id FROM tenant_default_models WHERE tenant_id = ? \
             ORDER BY model_type",
        );
        let rows = sqlx::query(&q)
            .bind(tenant_id)
            .fetch_all(&self.pool)
            .await?;
        rows.iter()
            .map(|row| Ok((text(row, "model_type")?, text(row, "llm_id")?)))
            .collect()
    }
}
