package dev.rmq.faults.check;

import dev.rmq.faults.check.Messages.Instance;
import dev.rmq.faults.check.RunLog.Run;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Nothing is delivered early. A delivery is early when the Redis clock its handler read at the start is before
 * the fixed time its payload was sent with (fixed-time), before rmq's own due time of the delivery, or, checked
 * independently of rmq, before a range-merge message's earliest possible due time: the time of the send that
 * created it plus its time range, less {@link #EARLY_TOLERANCE_MS}. The producer's and Redis's clocks are one
 * host clock, and the producer reads it before the send, so that bound is never later than the due time the
 * script computed.
 */
final class EarlyCheck {

    /** Rounding of the producer's microsecond clock and of Redis's millisecond scores. */
    static final long EARLY_TOLERANCE_MS = 2;

    private EarlyCheck() {
    }

    static void run(RunLog log, Messages messages, Verdict verdict) {
        long early = 0;
        Map<String, Long> byRule = new TreeMap<>();
        List<String> examples = new ArrayList<>();
        for (Run run : log.runs) {
            String rule = rule(log, messages, run);
            if (rule != null) {
                early++;
                byRule.merge(rule, 1L, Long::sum);
                Verdict.example(examples, DuplicateCheck.brief(run) + " " + rule + ": Redis clock " + run.redisNowMs()
                        + " ms, rmq due " + run.dueMs() + " ms, fixed " + run.fixedMs() + " ms");
            }
        }
        verdict.figures().put("early", early);
        verdict.details().put("early_by_rule", byRule);
        verdict.details().put("early_examples", examples);
        verdict.failIf(early > 0, early + " delivery(ies) before the due time");
    }

    /** The rule a delivery broke by starting early, or null when it was on time. */
    private static @Nullable String rule(RunLog log, Messages messages, Run run) {
        if (run.fixedMs() > 0 && run.redisNowMs() < run.fixedMs()) {
            return "before its fixed time";
        }
        if ("RANGE_MERGE".equals(log.typeOf(run.topic())) && !run.probe()) {
            Instance instance = messages.instanceOf(run.topic(), run.key(), run.seq());
            if (instance != null && run.redisNowMs() < instance.earliestRangeDueMs(run.seq()) - EARLY_TOLERANCE_MS) {
                return "before its creating send + timeRange";
            }
        }
        if (run.dueMs() >= 0 && run.redisNowMs() < run.dueMs()) {
            return "before rmq's due time";
        }
        return null;
    }
}
