//! Embeddings of several texts, in input order.

use serde_json::{Value, json};

use crate::{CancellationToken, Client, LlmError};

impl Client {
    /// Embeddings of several texts.
    pub async fn embeddings(
        &self,
        model: &str,
        inputs: &[String],
        cancel: &CancellationToken,
    ) -> Result<Vec<Vec<f32>>, LlmError> {
        let body = json!({"model": model, "input": inputs});
        let resp = self.send("embeddings", &body, cancel).await?;
        let v: Value = resp
            .json()
            .await
            .map_err(|e| LlmError::BadResponse(format!("not JSON: {e}")))?;
        let mut data: Vec<(usize, Vec<f32>)> = v["data"]
            .as_array()
            .ok_or_else(|| LlmError::BadResponse("no `data` in the embeddings answer".to_owned()))?
            .iter()
            .map(|d| {
                let idx = usize::try_from(d["index"].as_u64().unwrap_or(0)).unwrap_or(0);
                let vec = serde_json::from_value::<Vec<f32>>(d["embedding"].clone())
                    .map_err(|e| LlmError::BadResponse(e.to_string()))?;
                Ok((idx, vec))
            })
            .collect::<Result<_, LlmError>>()?;
        data.sort_by_key(|(i, _)| *i);
        if data.len() != inputs.len() {
            return Err(LlmError::BadResponse(format!(
                "{} embeddings for {} inputs",
                data.len(),
                inputs.len()
            )));
        }
        Ok(data.into_iter().map(|(_, v)| v).collect())
    }
}
