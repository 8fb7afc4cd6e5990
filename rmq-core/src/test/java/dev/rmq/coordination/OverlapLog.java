package dev.rmq.coordination;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Records each handler run as "slot s, worker w, start, end" and finds runs of one slot that overlap in
 * time, which exclusive slot ownership must never allow.
 */
final class OverlapLog {

    record Run(int slot, String worker, long start, long end) {
    }

    private final ConcurrentLinkedQueue<Run> runs = new ConcurrentLinkedQueue<>();

    /** Times {@code body} as one run of {@code slot} by {@code worker}. */
    void record(int slot, String worker, Runnable body) {
        long start = System.nanoTime();
        try {
            body.run();
        } finally {
            runs.add(new Run(slot, worker, start, System.nanoTime()));
        }
    }

    /** Adds a run timed elsewhere, for example in another process. */
    void add(int slot, String worker, long start, long end) {
        runs.add(new Run(slot, worker, start, end));
    }

    int size() {
        return runs.size();
    }

    /** Pairs of runs of the same slot, by different workers, whose intervals intersect. */
    List<String> overlaps() {
        Map<Integer, List<Run>> bySlot = new TreeMap<>();
        for (Run run : runs) {
            bySlot.computeIfAbsent(run.slot(), s -> new ArrayList<>()).add(run);
        }
        List<String> found = new ArrayList<>();
        bySlot.forEach((slot, list) -> {
            list.sort(Comparator.comparingLong(Run::start));
            Run latest = null;
            for (Run run : list) {
                if (latest != null && run.start() < latest.end()) {
                    found.add("slot " + slot + ": " + latest.worker() + " ran until " + latest.end() + " but "
                            + run.worker() + " started at " + run.start());
                }
                if (latest == null || run.end() > latest.end()) {
                    latest = run;
                }
            }
        });
        return found;
    }
}
