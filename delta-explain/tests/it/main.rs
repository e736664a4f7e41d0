//! Integration tests: the `delta-explain` binary on real Delta tables.

mod action;
mod advise;
mod budget;
mod check;
mod conventions;
mod damaged_logs;
mod deletion_vectors;
mod diagnoses;
mod diff;
mod doctor;
mod errors;
mod features;
mod fixtures_sweep;
mod front_end_bounds;
mod front_end_shapes;
mod fuzz;
mod golden_reports;
mod html_page;
mod layers;
mod new_user;
mod partition_memory;
mod peer_contract;
mod peer_validation;
mod pinned;
mod pitfalls;
mod predicates_file;
mod progress;
mod remote;
mod schema;
mod stats_coverage;
mod support;
mod taxi;
mod time_functions;
mod unity;
mod verify;
mod workspace;

/// Counts what each thread allocates, for the tests that weigh a structure: a thread's own
/// count, so tests running beside it do not disturb it.
#[global_allocator]
static ALLOCATOR: allocations::Counting = allocations::Counting;

mod allocations {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;

    thread_local! {
        static NET: Cell<isize> = const { Cell::new(0) };
    }

    pub struct Counting;

    fn count(bytes: isize) {
        // A thread being torn down has no counter left; nothing it frees is weighed.
        let _ = NET.try_with(|net| net.set(net.get() + bytes));
    }

    // SAFETY: every call is passed on to the system allocator unchanged; the counter is a
    // const-initialized thread local, which allocates nothing.
    #[allow(unsafe_code)]
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            count(layout.size() as isize);
            unsafe { System.alloc(layout) }
        }
        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            count(layout.size() as isize);
            unsafe { System.alloc_zeroed(layout) }
        }
        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            count(-(layout.size() as isize));
            unsafe { System.dealloc(ptr, layout) }
        }
        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            count(new_size as isize - layout.size() as isize);
            unsafe { System.realloc(ptr, layout, new_size) }
        }
    }

    /// What `build` leaves allocated on this thread, with what it returns (kept alive, so
    /// its memory is counted).
    pub fn net_bytes_allocated_by<T>(build: impl FnOnce() -> T) -> (T, isize) {
        let before = NET.with(Cell::get);
        let built = build();
        (built, NET.with(Cell::get) - before)
    }
}
