//! Tightness on the real fixtures: over every corpus predicate, explain-core keeps no file the
//! kernel (asked the same predicate, no guard) drops, except where a guard that fired says
//! why (`analysis.hazards`).

use harness::corpus::{corpus_path, read_corpus};
use harness::subject::Subject;
use harness::tightness::measure;

#[test]
fn no_fixture_predicate_keeps_more_than_the_kernel_unless_a_guard_says_why() {
    let mut measured = 0;
    let mut guarded = 0;
    for table in testkit::all_tables() {
        let location = table.to_string_lossy().into_owned();
        let name = location
            .rsplit(['/', '\\'])
            .next()
            .unwrap_or(&location)
            .to_string();
        let subject = Subject::load(&name, &location).unwrap();
        let corpus = read_corpus(&corpus_path(&name)).unwrap();
        for predicate in corpus {
            let Ok(m) = measure(&subject, &predicate) else {
                continue;
            };
            assert_eq!(
                m.unexplained, 0,
                "{name}: `{predicate}` keeps {} file(s) the kernel drops with no guard fired",
                m.unexplained
            );
            assert!(
                m.default >= m.matching && m.strict >= m.matching,
                "{name}: `{predicate}` keeps fewer than match"
            );
            measured += 1;
            if m.default > m.kernel {
                guarded += 1;
            }
        }
    }
    assert!(measured > 1000, "the corpora were measured ({measured})");
    eprintln!(
        "{measured} predicates measured; {guarded} keep more than the kernel, each with a guard"
    );
}
