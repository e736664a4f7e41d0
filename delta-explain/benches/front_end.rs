//! The front end (parse, normalize, classify, lower) on every predicate shape up to 64 KB that
//! tests/it/front_end_bounds.rs holds to its outcome: the time each shape takes, in a release
//! build (`cargo bench -p delta-explain --bench front_end`). A parse that is not linear in
//! the predicate's length shows here as a shape far slower than its neighbours of the same size.

use criterion::{Criterion, criterion_group, criterion_main};

#[allow(dead_code)]
#[path = "../tests/it/front_end_shapes.rs"]
mod front_end_shapes;

fn front_end(c: &mut Criterion) {
    let taxi = testkit::taxi();
    let table = explain_core::replay::ReplayedTable::open(&taxi, None).expect("taxi-nyc opens");
    let columns = table.columns();
    let mut group = c.benchmark_group("front_end");
    group.sample_size(10);
    for (name, text, _) in front_end_shapes::cases() {
        group.bench_function(&name, |b| {
            b.iter(|| std::hint::black_box(front_end_shapes::front_end(&text, columns)))
        });
    }
    group.finish();
}

criterion_group!(benches, front_end);
criterion_main!(benches);
