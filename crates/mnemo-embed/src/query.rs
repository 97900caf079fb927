//! The query-time encoder: the same BERT, with its linear layers' weights quantized to 8 bits
//! (`Q8_0`: blocks of 32 with one scale each), for one short text at a time.
//!
//! Why: embedding a query sits on the path of every search and chat turn. For a dozen word
//! pieces the f32 model is bound by reading (and re-packing) its 90 MB of weights on each call
//! (≈ 10–15 ms on two cores); the 8-bit copy is a quarter of that and needs no re-packing.
//! Documents are still embedded in f32, in batches (throughput, not latency, matters there);
//! an 8-bit query vector's cosine with the f32 one is above 0.99 (tested), and the LoCoMo bench
//! measures the effect on retrieval side by side.

use candle_core::quantized::{GgmlDType, QMatMul, QTensor};
use candle_core::{Device, Module, Result, Tensor};
use candle_nn::{Embedding, LayerNorm, VarBuilder};
use candle_transformers::models::bert::Config;

struct QLinear {
    w: QMatMul,
    b: Tensor,
}

impl QLinear {
    fn load(vb: &VarBuilder, in_dim: usize, out_dim: usize) -> Result<Self> {
        let w = vb.get((out_dim, in_dim), "weight")?;
        let b = vb.get(out_dim, "bias")?;
        let q = QTensor::quantize(&w, GgmlDType::Q8_0)?;
        Ok(Self {
            w: QMatMul::from_qtensor(q)?,
            b,
        })
    }

    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        self.w.forward(x)?.broadcast_add(&self.b)
    }
}

struct Layer {
    q: QLinear,
    k: QLinear,
    v: QLinear,
    o: QLinear,
    ln1: LayerNorm,
    up: QLinear,
    down: QLinear,
    ln2: LayerNorm,
}

/// BERT for one text, 8-bit linear layers, mean pooling, unit length.
pub(crate) struct QueryEncoder {
    word: Embedding,
    position: Embedding,
    token_type: Tensor,
    ln: LayerNorm,
    layers: Vec<Layer>,
    heads: usize,
    head_dim: usize,
}

impl QueryEncoder {
    /// Build from the f32 weights the main model was loaded from.
    pub(crate) fn load(vb: &VarBuilder, c: &Config) -> Result<Self> {
        let vb = if vb.contains_tensor("embeddings.word_embeddings.weight") {
            vb.clone()
        } else {
            vb.pp("bert")
        };
        let h = c.hidden_size;
        let ln = |vb: VarBuilder| candle_nn::layer_norm(h, c.layer_norm_eps, vb);
        let e = vb.pp("embeddings");
        let word = candle_nn::embedding(c.vocab_size, h, e.pp("word_embeddings"))?;
        let position =
            candle_nn::embedding(c.max_position_embeddings, h, e.pp("position_embeddings"))?;
        let token_type = e
            .pp("token_type_embeddings")
            .get((c.type_vocab_size, h), "weight")?
            .get(0)?;
        let emb_ln = ln(e.pp("LayerNorm"))?;
        let mut layers = Vec::with_capacity(c.num_hidden_layers);
        for i in 0..c.num_hidden_layers {
            let l = vb.pp(format!("encoder.layer.{i}"));
            let a = l.pp("attention");
            let s = a.pp("self");
            layers.push(Layer {
                q: QLinear::load(&s.pp("query"), h, h)?,
                k: QLinear::load(&s.pp("key"), h, h)?,
                v: QLinear::load(&s.pp("value"), h, h)?,
                o: QLinear::load(&a.pp("output").pp("dense"), h, h)?,
                ln1: ln(a.pp("output").pp("LayerNorm"))?,
                up: QLinear::load(&l.pp("intermediate").pp("dense"), h, c.intermediate_size)?,
                down: QLinear::load(&l.pp("output").pp("dense"), c.intermediate_size, h)?,
                ln2: ln(l.pp("output").pp("LayerNorm"))?,
            });
        }
        Ok(Self {
            word,
            position,
            token_type,
            ln: emb_ln,
            layers,
            heads: c.num_attention_heads,
            head_dim: h / c.num_attention_heads,
        })
    }

    /// The unit-length embedding of one tokenised text.
    pub(crate) fn encode(&self, ids: &[u32]) -> Result<Vec<f32>> {
        let dev = Device::Cpu;
        let n = ids.len();
        let n32 = u32::try_from(n).unwrap_or(u32::MAX);
        let ids = Tensor::new(ids, &dev)?;
        let pos = Tensor::arange(0u32, n32, &dev)?;
        let x = (self.word.forward(&ids)? + self.position.forward(&pos)?)?
            .broadcast_add(&self.token_type)?;
        let mut x = self.ln.forward(&x)?;
        #[allow(clippy::cast_precision_loss)]
        let scale = (self.head_dim as f64).sqrt();
        let heads = |t: Tensor| -> Result<Tensor> {
            t.reshape((n, self.heads, self.head_dim))?
                .transpose(0, 1)?
                .contiguous()
        };
        for l in &self.layers {
            let q = heads(l.q.forward(&x)?)?;
            let k = heads(l.k.forward(&x)?)?;
            let v = heads(l.v.forward(&x)?)?;
            let scores = (q.matmul(&k.t()?.contiguous()?)? / scale)?;
            let probs = candle_nn::ops::softmax_last_dim(&scores)?;
            let ctx = probs
                .matmul(&v)?
                .transpose(0, 1)?
                .contiguous()?
                .reshape((n, self.heads * self.head_dim))?;
            x = l.ln1.forward(&(l.o.forward(&ctx)? + &x)?)?;
            let ff = l.down.forward(&l.up.forward(&x)?.gelu_erf()?)?;
            x = l.ln2.forward(&(ff + &x)?)?;
        }
        let mean = x.mean(0)?;
        let norm = mean.sqr()?.sum_all()?.sqrt()?;
        mean.broadcast_div(&norm)?.to_vec1::<f32>()
    }
}
