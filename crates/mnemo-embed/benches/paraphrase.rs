//! Paraphrases across four languages: 44 memories in English, Chinese, Japanese and
//! Korean; 36 questions that share no word with the memory they ask about (no character, for
//! Chinese and Japanese), a third of them in another language than their memory, and
//! distractors on the same subjects in every language. Reported: hit@1, hit@3 and MRR by
//! meaning alone, for multilingual-e5-small and for all-MiniLM-L6-v2, side by side.
//! `cargo bench -p mnemo-embed --bench paraphrase`.

use mnemo_embed::{Embedder, dot};

const MEMORIES: &[(&str, &str)] = &[
    (
        "e1",
        "Dog named Biscuit: the user walks the beagle twice a day",
    ),
    (
        "e2",
        "Deploys go through the staging cluster before production",
    ),
    ("e3", "Prefers terse answers without a closing summary"),
    (
        "e4",
        "Allergic to peanuts; never suggest recipes containing them",
    ),
    (
        "e5",
        "Runs five kilometres every Saturday morning along the river",
    ),
    (
        "e6",
        "Works remotely from Lisbon, in the Western European time zone",
    ),
    ("e7", "Monthly budget review happens on the last Thursday"),
    ("e8", "Uses Neovim with Vim key bindings for all editing"),
    ("e9", "Daughter starts primary school in September"),
    ("e10", "Drinks oat milk lattes, avoids dairy"),
    (
        "e11",
        "Backup of the photo library runs nightly to an external disk",
    ),
    ("z1", "降低冷启动时间：第三方脚本延后执行"),
    ("z2", "用户对猫毛过敏"),
    ("z3", "每周五下午不发布新版本"),
    ("z4", "喜欢吃辣的川菜"),
    ("z5", "周末常去爬山"),
    ("z6", "数据库每天凌晨自动备份"),
    ("z7", "孩子明年上小学"),
    ("z8", "用户在学习西班牙语"),
    ("z9", "公司年会定在十二月"),
    ("z10", "晚上十一点前睡觉"),
    ("z11", "用 Rust 写后端服务"),
    ("j1", "会議によく遅れる"),
    ("j2", "毎朝コーヒーを二杯飲む"),
    ("j3", "車の運転免許を持っていない"),
    ("j4", "ピアノを十年間習っている"),
    ("j5", "東京から大阪へ引っ越した"),
    ("j6", "寿司が大好物"),
    ("j7", "毎晩日記をつけている"),
    ("j8", "在宅勤務が週三日"),
    ("j9", "花粉症で春がつらい"),
    ("j10", "猫を二匹飼っている"),
    ("j11", "英語の試験に合格した"),
    ("k1", "매운 음식을 좋아하지 않는다"),
    ("k2", "아침마다 아메리카노를 마신다"),
    ("k3", "매달 마지막 금요일에 배포한다"),
    ("k4", "주말에는 자전거를 탄다"),
    ("k5", "서울에 살고 있다"),
    ("k6", "강아지를 키운다"),
    ("k7", "밤늦게까지 게임을 한다"),
    ("k8", "채식주의자다"),
    ("k9", "기타를 배우고 있다"),
    ("k10", "여름휴가는 제주도로 간다"),
    ("k11", "회의록은 노션에 정리한다"),
];

const QUESTIONS: &[(&str, &str)] = &[
    ("首屏加载太久了", "z1"),
    ("what animal lives in their home", "e1"),
    ("how is new code shipped to customers", "e2"),
    ("keep replies short", "e3"),
    ("food they must avoid", "e4"),
    ("jogging habit", "e5"),
    ("where do they live", "e6"),
    ("when are finances checked", "e7"),
    ("favourite text editor", "e8"),
    ("kid's education", "e9"),
    ("coffee order", "e10"),
    ("how are pictures kept safe", "e11"),
    ("allergic to cat hair", "z2"),
    ("哪天禁止上线？", "z3"),
    ("spicy Sichuan cooking", "z4"),
    ("hiking on weekends", "z5"),
    ("资料如何保存防丢失", "z6"),
    ("when does the child begin school", "z7"),
    ("learning a foreign language", "z8"),
    ("什么时候休息", "z10"),
    ("always late for the meeting", "j1"),
    ("カフェインをどれくらい摂る？", "j2"),
    ("can they drive a car", "j3"),
    ("楽器の経験", "j4"),
    ("where did they relocate", "j5"),
    ("favorite Japanese food", "j6"),
    ("hay fever in spring", "j9"),
    ("リモートワークは何日？", "j8"),
    ("does not like hot food", "k1"),
    ("weekend cycling", "k4"),
    ("고기를 안 먹는다", "k8"),
    ("what instrument are they learning", "k9"),
    ("summer vacation destination", "k10"),
    ("会议记录放在哪里", "k11"),
    ("家里养了什么小狗", "k6"),
    ("ソウル在住", "k5"),
];

#[allow(clippy::cast_precision_loss)]
fn score(model: &Embedder) -> (usize, usize, f64, Vec<&'static str>) {
    let texts: Vec<&str> = MEMORIES.iter().map(|m| m.1).collect();
    let docs = model.embed(&texts).expect("embed memories");
    let (mut top1, mut top3, mut rr) = (0, 0, 0.0);
    let mut missed = Vec::new();
    for (q, want) in QUESTIONS {
        let qv = model.embed_query(q).expect("embed question").vector;
        let mut order: Vec<usize> = (0..MEMORIES.len()).collect();
        order.sort_by(|a, b| dot(&qv, &docs[*b].vector).total_cmp(&dot(&qv, &docs[*a].vector)));
        let rank = order
            .iter()
            .position(|i| MEMORIES[*i].0 == *want)
            .expect("target")
            + 1;
        top1 += usize::from(rank == 1);
        top3 += usize::from(rank <= 3);
        rr += 1.0 / rank as f64;
        if rank > 3 {
            missed.push(*q);
        }
    }
    (top1, top3, rr / QUESTIONS.len() as f64, missed)
}

fn main() {
    let mut rows = Vec::new();
    let e5 = mnemo_embed::locate_e5().and_then(|p| Embedder::load(&p).ok());
    let minilm = mnemo_embed::minilm_for_tests().and_then(|p| Embedder::load(&p).ok());
    for (name, m) in [
        ("multilingual-e5-small (q4)", e5),
        ("all-MiniLM-L6-v2", minilm),
    ] {
        match m {
            Some(m) => rows.push((name, Some(score(&m)))),
            None => rows.push((name, None)),
        }
    }
    println!(
        "{} questions, {} memories in four languages; no shared words\n",
        QUESTIONS.len(),
        MEMORIES.len()
    );
    println!("| model | hit@1 | hit@3 | MRR |");
    println!("|---|---|---|---|");
    for (name, r) in &rows {
        match r {
            Some((t1, t3, mrr, _)) => println!(
                "| {name} | {t1}/{n} | {t3}/{n} | {mrr:.2} |",
                n = QUESTIONS.len()
            ),
            None => println!("| {name} | not installed | | |"),
        }
    }
    for (name, r) in &rows {
        if let Some((_, _, _, missed)) = r {
            println!("\n{name} misses (not in the top 3): {missed:?}");
        }
    }
}
