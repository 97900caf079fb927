//! Reading `weights.safetensors`: an 8-byte little-endian header length, a JSON index
//! (`name → {dtype, shape, data_offsets}`, plus `__metadata__`), then the tensors' raw
//! little-endian bytes. Each tensor is read on its own (a seek and one read), so loading never
//! holds the file twice; every failure is a sentence naming the tensor and what is wrong.

use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// The largest header accepted (the real one is ~2.6 KB).
const MAX_HEADER: u64 = 1 << 20;

#[derive(Debug, serde::Deserialize)]
struct Entry {
    dtype: String,
    shape: Vec<usize>,
    data_offsets: [u64; 2],
}

/// An open weights file and its index.
pub(crate) struct Tensors {
    file: File,
    /// Where the data starts (after the header).
    base: u64,
    /// The data's length in bytes.
    data_len: u64,
    index: HashMap<String, Entry>,
    metadata: HashMap<String, String>,
}

impl Tensors {
    /// Open `path` and read its index.
    pub(crate) fn open(path: &Path) -> Result<Self, String> {
        let name = path.display();
        let mut file = File::open(path).map_err(|e| format!("{name} cannot be opened: {e}"))?;
        let size = file
            .metadata()
            .map_err(|e| format!("{name} cannot be read: {e}"))?
            .len();
        let mut len = [0u8; 8];
        file.read_exact(&mut len)
            .map_err(|_| format!("{name} is truncated (no header)"))?;
        let header_len = u64::from_le_bytes(len);
        if header_len > MAX_HEADER || header_len + 8 > size {
            return Err(format!(
                "{name} is not a safetensors file (header length {header_len})"
            ));
        }
        let mut header = vec![0u8; usize::try_from(header_len).unwrap_or(0)];
        file.read_exact(&mut header)
            .map_err(|_| format!("{name} is truncated (in its header)"))?;
        let mut raw: HashMap<String, serde_json::Value> = serde_json::from_slice(&header)
            .map_err(|e| format!("{name} has an unreadable header: {e}"))?;
        let metadata = match raw.remove("__metadata__") {
            Some(m) => serde_json::from_value(m)
                .map_err(|e| format!("{name} has unreadable metadata: {e}"))?,
            None => HashMap::new(),
        };
        let mut index = HashMap::new();
        for (k, v) in raw {
            let e: Entry = serde_json::from_value(v)
                .map_err(|e| format!("{name}: tensor {k} has an unreadable entry: {e}"))?;
            index.insert(k, e);
        }
        Ok(Self {
            file,
            base: 8 + header_len,
            data_len: size - 8 - header_len,
            index,
            metadata,
        })
    }

    /// A `__metadata__` value.
    pub(crate) fn meta(&self, key: &str) -> Option<&str> {
        self.metadata.get(key).map(String::as_str)
    }

    /// Tensor `name`'s shape, if it is there.
    pub(crate) fn shape(&self, name: &str) -> Option<&[usize]> {
        self.index.get(name).map(|e| e.shape.as_slice())
    }

    /// The raw bytes of tensor `name`, which must have `dtype` and `shape`.
    pub(crate) fn bytes(
        &mut self,
        name: &str,
        dtype: &str,
        shape: &[usize],
    ) -> Result<Vec<u8>, String> {
        let e = self
            .index
            .get(name)
            .ok_or_else(|| format!("the weights have no tensor {name}"))?;
        if e.dtype != dtype || e.shape != shape {
            return Err(format!(
                "tensor {name} is {} {:?}, not {dtype} {shape:?}",
                e.dtype, e.shape
            ));
        }
        let width = match dtype {
            "F32" => 4,
            _ => 1,
        };
        let want = shape.iter().product::<usize>() * width;
        let [start, end] = e.data_offsets;
        if start > end || end - start != want as u64 {
            return Err(format!(
                "tensor {name}'s bytes {start}..{end} do not fit its shape"
            ));
        }
        if end > self.data_len {
            return Err(format!(
                "the file is truncated: tensor {name} ends past its end"
            ));
        }
        self.file
            .seek(SeekFrom::Start(self.base + start))
            .map_err(|e| format!("reading tensor {name}: {e}"))?;
        let mut out = vec![0u8; want];
        self.file
            .read_exact(&mut out)
            .map_err(|_| format!("the file is truncated in tensor {name}"))?;
        Ok(out)
    }

    /// Tensor `name` as f32 numbers, checked to be finite.
    pub(crate) fn f32s(&mut self, name: &str, shape: &[usize]) -> Result<Vec<f32>, String> {
        let raw = self.bytes(name, "F32", shape)?;
        let out: Vec<f32> = raw
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        if out.iter().any(|x| !x.is_finite()) {
            return Err(format!("tensor {name} holds non-finite numbers"));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A safetensors file with the given header JSON and data.
    fn file(dir: &Path, header: &str, data: &[u8]) -> std::path::PathBuf {
        let p = dir.join("w.safetensors");
        let mut b = (header.len() as u64).to_le_bytes().to_vec();
        b.extend_from_slice(header.as_bytes());
        b.extend_from_slice(data);
        std::fs::write(&p, b).expect("write");
        p
    }

    #[test]
    fn tensors_are_read_and_every_mismatch_is_named() {
        let d = tempfile::tempdir().expect("tmp");
        let data: Vec<u8> = [1.0f32, 2.0, f32::NAN]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        let p = file(
            d.path(),
            r#"{"__metadata__":{"format":"x"},"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},
               "nan":{"dtype":"F32","shape":[1],"data_offsets":[8,12]},
               "long":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},
               "odd":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}"#,
            &data,
        );
        let mut t = Tensors::open(&p).expect("open");
        assert_eq!(t.meta("format"), Some("x"));
        assert_eq!(t.f32s("a", &[2]).expect("a"), vec![1.0, 2.0]);
        let err = |r: Result<Vec<f32>, String>| r.expect_err("must fail");
        assert!(err(t.f32s("a", &[3])).contains("not F32 [3]"));
        assert!(err(t.f32s("b", &[2])).contains("no tensor b"));
        assert!(err(t.f32s("nan", &[1])).contains("non-finite"));
        assert!(err(t.f32s("long", &[4])).contains("truncated"));
        assert!(err(t.f32s("odd", &[3])).contains("do not fit its shape"));
    }

    #[test]
    fn a_file_that_is_not_safetensors_is_refused() {
        let d = tempfile::tempdir().expect("tmp");
        let p = d.path().join("w.safetensors");
        std::fs::write(&p, b"\xff\xff\xff\xff\xff\xff\xff\x7fjunk").expect("write");
        let msg = Tensors::open(&p).err().expect("refused");
        assert!(msg.contains("not a safetensors file"), "{msg}");
        std::fs::write(&p, b"\x02\x00").expect("write");
        let msg = Tensors::open(&p).err().expect("refused");
        assert!(msg.contains("truncated"), "{msg}");
        let p = file(d.path(), "{not json", b"");
        let msg = Tensors::open(&p).err().expect("refused");
        assert!(msg.contains("unreadable header"), "{msg}");
    }
}
