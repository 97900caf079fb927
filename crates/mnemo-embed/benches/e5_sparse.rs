//! Cost of e5's sparse head (`sae.bin`) beside the dense encode, on the same texts, in one run:
//! per text (median of rounds), the dense vector alone, the sparse vector alone (its own pass
//! over the raw text) and of that the head itself (projection to 16,384 features, top-k per
//! token, max-pooling), and both in one pass ([`E5::embed_with_sparse`]); for queries one at a
//! time and for ~40-word memories in a batch. `cargo bench -p mnemo-embed --bench e5_sparse`;
//! threads: `E5_THREADS` (default 2), rounds: `E5_ROUNDS` (default 5; 1 under `cargo test`).

use std::time::{Duration, Instant};

use mnemo_embed::e5::{E5, Role};

const QUERIES: &[&str] = &[
    "which pet does the user own",
    "首屏加载太久了",
    "what does the user drink in the morning",
    "Wann fährt die Nutzerin nach München?",
    "how do we deploy to production",
    "o que o usuário bebe de manhã",
    "When did Caroline go to the LGBTQ support group?",
    "用户喜欢什么编程语言",
];

const PASSAGES: &[&str] = &[
    "The user walks their beagle Biscuit twice a day, once before work and once after dinner, \
     and prefers quiet routes through the park because the dog gets nervous around bicycles and \
     loud traffic near the main road.",
    "Deploys go through the staging cluster first; the team waits for the smoke tests and a \
     manual check of the dashboard before promoting a build to production, and never deploys \
     on Friday afternoons or before holidays.",
    "用户每天早上喝一杯手冲咖啡，偏爱浅烘焙的埃塞俄比亚豆子，下午改喝绿茶，因为咖啡因太多会影响睡眠。他在家工作，周一和周四去办公室开会。",
    "O usuário toma café sem açúcar todas as manhãs antes de começar a trabalhar e prefere \
     reuniões curtas no início da tarde, porque à noite cuida dos filhos e não responde \
     mensagens do trabalho.",
    "Die Nutzerin fährt jeden Freitag mit dem Zug nach München, arbeitet unterwegs an \
     Präsentationen und bucht immer einen Platz im Ruhebereich, weil sie Telefonate im Abteil \
     nicht mag.",
];

fn median(mut v: Vec<Duration>) -> f64 {
    v.sort();
    v[v.len() / 2].as_secs_f64() * 1000.0
}

#[allow(clippy::cast_precision_loss)]
fn main() {
    let threads: usize = std::env::var("E5_THREADS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2);
    let rounds: usize = std::env::var("E5_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        // Under `cargo test` (no `--bench` flag) one round: a smoke pass.
        .unwrap_or(if std::env::args().any(|a| a == "--bench") {
            5
        } else {
            1
        })
        .max(1);
    let Some(path) = mnemo_embed::locate_e5() else {
        println!("no multilingual-e5-small file found: run the README's set-up (bench skipped)");
        return;
    };
    let Some(sae) = mnemo_embed::locate_sparse_head(&path) else {
        println!(
            "no sae.bin beside {}: run the set-up (bench skipped)",
            path.display()
        );
        return;
    };
    let mut m = E5::load_with_threads(&path, threads).expect("load");
    let started = Instant::now();
    m.attach_sparse(&sae).expect("sparse head");
    println!(
        "sparse head: loaded in {:.0} ms, {:.1} MB in memory; {threads} threads, median of {rounds} rounds",
        started.elapsed().as_secs_f64() * 1000.0,
        m.sparse_bytes() as f64 / 1e6
    );

    // Warm-up.
    let _ = m.embed_with_sparse(QUERIES, Role::Query);

    println!(
        "\n{:<52} {:>6} {:>8} {:>8} {:>8} {:>8}",
        "query (one at a time)", "pieces", "dense", "sparse", "head", "both"
    );
    let mut totals = [0.0_f64; 4];
    for q in QUERIES {
        let (mut d, mut s, mut h, mut b) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for _ in 0..rounds {
            let t = Instant::now();
            let _ = m.embed(&[q], Role::Query);
            d.push(t.elapsed());
            let t = Instant::now();
            let (_, head) = m.sparse_timed(&[q]).expect("head");
            s.push(t.elapsed());
            h.push(head);
            let t = Instant::now();
            let _ = m.embed_with_sparse(&[q], Role::Query);
            b.push(t.elapsed());
        }
        let row = [median(d), median(s), median(h), median(b)];
        for (t, r) in totals.iter_mut().zip(row) {
            *t += r;
        }
        let short: String = q.chars().take(50).collect();
        println!(
            "{short:<52} {:>6} {:>8.2} {:>8.2} {:>8.2} {:>8.2}",
            m.tokens(q, Role::Query).len(),
            row[0],
            row[1],
            row[2],
            row[3]
        );
    }
    let n = QUERIES.len() as f64;
    println!(
        "{:<52} {:>6} {:>8.2} {:>8.2} {:>8.2} {:>8.2}",
        "mean per query",
        "",
        totals[0] / n,
        totals[1] / n,
        totals[2] / n,
        totals[3] / n
    );

    // Memories in one batch, as the background embedding job sends them.
    let batch: Vec<&str> = (0..16).map(|i| PASSAGES[i % PASSAGES.len()]).collect();
    let pieces: usize = batch.iter().map(|p| m.tokens(p, Role::Passage).len()).sum();
    let (mut d, mut s, mut h, mut b) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..rounds {
        let t = Instant::now();
        let _ = m.embed(&batch, Role::Passage);
        d.push(t.elapsed());
        let t = Instant::now();
        let (_, head) = m.sparse_timed(&batch).expect("head");
        s.push(t.elapsed());
        h.push(head);
        let t = Instant::now();
        let _ = m.embed_with_sparse(&batch, Role::Passage);
        b.push(t.elapsed());
    }
    let per = batch.len() as f64;
    println!(
        "\n{:<52} {:>6} {:>8.2} {:>8.2} {:>8.2} {:>8.2}",
        format!("memory, per text (batch of {})", batch.len()),
        pieces / batch.len(),
        median(d) / per,
        median(s) / per,
        median(h) / per,
        median(b) / per
    );
    println!(
        "\nms per text. dense: embed (prefix); sparse: the raw text's own pass + head; head: \
         the sparse head alone; both: embed_with_sparse (one pass, both sets of windows)."
    );
}
