//! Work shared out across cores: a list cut into one contiguous part per core, each part
//! mapped on its own thread, the results joined back in order. Used where each item is
//! independent and costly (reading, parsing, tokenising files); small lists stay on the
//! calling thread.

/// `items` mapped with `f`, in order — on every core when there are at least `min` items.
pub fn map<T: Send, R: Send>(items: Vec<T>, min: usize, f: impl Fn(T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    if items.len() < min.max(2) || threads < 2 {
        return items.into_iter().map(f).collect();
    }
    let per = items.len().div_ceil(threads);
    let mut parts: Vec<Vec<T>> = Vec::with_capacity(threads);
    let mut it = items.into_iter();
    loop {
        let part: Vec<T> = it.by_ref().take(per).collect();
        if part.is_empty() {
            break;
        }
        parts.push(part);
    }
    let f = &f;
    std::thread::scope(|s| {
        let handles: Vec<_> = parts
            .into_iter()
            .map(|part| s.spawn(move || part.into_iter().map(f).collect::<Vec<R>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| match h.join() {
                Ok(v) => v,
                Err(panic) => std::panic::resume_unwind(panic),
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn results_come_back_in_order_whatever_the_size() {
        for n in [0, 1, 2, 3, 255, 256, 1001] {
            let items: Vec<usize> = (0..n).collect();
            let out = super::map(items, 4, |i| i * 2);
            assert_eq!(out, (0..n).map(|i| i * 2).collect::<Vec<_>>(), "{n}");
        }
    }
}
