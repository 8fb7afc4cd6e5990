package dev.rmq.internal.schedule;

import dev.rmq.internal.payload.Payloads;
import dev.rmq.internal.redis.Envelope;
import dev.rmq.internal.redis.Futures;
import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.internal.redis.SlotKeys;
import dev.rmq.internal.script.ScheduleStateCall;
import dev.rmq.internal.script.ScheduleTickCall;
import dev.rmq.internal.script.ScriptRunner;
import dev.rmq.journal.JournaledSend;
import dev.rmq.journal.MessageJournal;
import dev.rmq.metrics.RmqMetrics;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.RmqProducer;
import dev.rmq.schedule.Overlap;
import dev.rmq.schedule.RecurringSchedule;
import dev.rmq.schedule.RmqSchedules;
import dev.rmq.schedule.ScheduleStatus;
import dev.rmq.schedule.UnknownScheduleException;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicRegistry;
import dev.rmq.topic.TopicType;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The schedules of one client: their declarations here, their passes on a thread of their own
 * ({@link ScheduleRunner}), and their operations on Redis.
 */
public final class RedisSchedules implements RmqSchedules, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RedisSchedules.class);
    /** How far ahead of its instant a tick is sent, so that it is in Redis before it is due. */
    static final Duration LEAD = Duration.ofSeconds(1);

    private final TopicRegistry topics;
    private final KeyLayout keys;
    private final ScriptRunner scripts;
    private final Payloads payloads;
    private final RmqMetrics metrics;
    private final RmqProducer producer;
    private final Clock clock;
    /** Told of each tick's message Redis stored, as a producer's sends are; null without a journal. */
    private final @Nullable MessageJournal journal;
    private final Map<String, Declared> declared = new ConcurrentHashMap<>();
    private final ScheduleRunner runner;

    public RedisSchedules(TopicRegistry topics, KeyLayout keys, ScriptRunner scripts, Payloads payloads,
                          RmqMetrics metrics, RmqProducer producer, Clock clock, @Nullable MessageJournal journal) {
        this.topics = topics;
        this.keys = keys;
        this.scripts = scripts;
        this.payloads = payloads;
        this.metrics = metrics;
        this.producer = producer;
        this.clock = clock;
        this.journal = journal;
        this.runner = new ScheduleRunner(this::pass, clock);
    }

    /** A schedule declared here, and what this application knows of it. */
    static final class Declared {
        final RecurringSchedule schedule;
        final TopicDefinition topic;
        final SlotKeys slot;
        /** The latest tick Redis recorded when last asked, in ms: 0 for none, -1 before the first call. */
        volatile long last = -1;
        volatile Instant wakeAt = Instant.EPOCH;
        volatile boolean conflictSaid;
        /** Whether its last pass failed: the WARN is said once per run of failures, and the recovery once. */
        volatile boolean failing;

        Declared(RecurringSchedule schedule, TopicDefinition topic, SlotKeys slot) {
            this.schedule = schedule;
            this.topic = topic;
            this.slot = slot;
        }
    }

    @Override
    public void upsert(RecurringSchedule schedule) {
        if (schedule == null) {
            throw new IllegalArgumentException("schedule must not be null");
        }
        if (!topics.contains(schedule.topic())) {
            throw new IllegalArgumentException("schedule '" + schedule.name() + "' is on topic '" + schedule.topic()
                    + "', which this client does not define; define it as a FIXED_TIME topic");
        }
        TopicDefinition topic = topics.require(schedule.topic());
        if (topic.type() != TopicType.FIXED_TIME) {
            throw new IllegalArgumentException("schedule '" + schedule.name() + "' is on topic '" + topic.name()
                    + "', a " + topic.type() + " topic; schedules take FIXED_TIME topics, whose messages are due at"
                    + " an instant, as a tick is");
        }
        SlotKeys slot = keys.slot(topic.name(), topic.slotOf(schedule.name()));
        Declared before = declared.put(schedule.name(), new Declared(schedule, topic, slot));
        if (before != null && !before.schedule.fingerprint().equals(schedule.fingerprint())) {
            log.info("schedule {} redefined: {} (was {}); its next tick after the latest one sent follows the new"
                    + " definition", schedule.name(), schedule.fingerprint(), before.schedule.fingerprint());
        }
        runner.start();
        runner.wake();
    }

    @Override
    public List<ScheduleStatus> list() {
        List<ScheduleStatus> all = new ArrayList<>();
        for (Declared entry : declared.values()) {
            all.add(status(entry));
        }
        all.sort((a, b) -> a.name().compareTo(b.name()));
        return all;
    }

    @Override
    public ScheduleStatus status(String name) {
        return status(require(name));
    }

    private ScheduleStatus status(Declared entry) {
        ScheduleStateCall.State state = state(entry, ScheduleStateCall.Op.READ, List.of());
        RecurringSchedule schedule = entry.schedule;
        Instant last = state.lastMs() == 0 ? null : Instant.ofEpochMilli(state.lastMs());
        Instant from = last == null || last.isBefore(clock.instant()) ? clock.instant() : last;
        return new ScheduleStatus(schedule.name(), schedule.topic(), schedule.rule().describe(),
                schedule.misfire().toString(), schedule.overlap().name(), state.paused(), last,
                state.paused() ? null : schedule.rule().next(from));
    }

    @Override
    public void pause(String name) {
        Declared entry = require(name);
        ScheduleStateCall.State state = state(entry, ScheduleStateCall.Op.PAUSE, waitingTicks(entry));
        log.info("schedule {} paused in every application; {} tick message(s) sent ahead withdrawn", name,
                state.withdrawn());
    }

    @Override
    public void resume(String name) {
        Declared entry = require(name);
        state(entry, ScheduleStateCall.Op.RESUME, List.of());
        entry.last = -1;
        entry.wakeAt = Instant.EPOCH;
        runner.wake();
        log.info("schedule {} resumed in every application, from its next tick", name);
    }

    @Override
    public void trigger(String name) {
        Declared entry = require(name);
        RecurringSchedule schedule = entry.schedule;
        Instant now = clock.instant();
        // a key of its own: two triggers in one millisecond, here or in another application, would otherwise merge
        String key = schedule.name() + "@manual-" + now.toEpochMilli() + "-"
                + Long.toHexString(ThreadLocalRandom.current().nextLong());
        producer.send(OutgoingMessage.fixedTime(schedule.topic(), schedule.nextPayload(), now)
                .withKey(key).withSlotBasis(schedule.name())
                .withHeaders(schedule.headersOf(now)));
        log.info("schedule {} triggered now, besides its ticks", name);
    }

    @Override
    public void remove(String name) {
        Declared entry = require(name);
        ScheduleStateCall.State state = state(entry, ScheduleStateCall.Op.CLEAR, waitingTicks(entry));
        declared.remove(name, entry);
        log.info("schedule {} removed here and its state cleared; {} tick message(s) sent ahead withdrawn", name,
                state.withdrawn());
    }

    private Declared require(String name) {
        Declared entry = name == null ? null : declared.get(name);
        if (entry == null) {
            throw new UnknownScheduleException(String.valueOf(name), declared.keySet());
        }
        return entry;
    }

    private ScheduleStateCall.State state(Declared entry, ScheduleStateCall.Op op,
                                          List<ScheduleStateCall.Tick> withdraw) {
        return Futures.join(scripts.run(entry.slot, new ScheduleStateCall(entry.schedule.name(), op, withdraw)));
    }

    /**
     * The ticks that may have been sent ahead and still wait: from a little before now, for the clocks' skew, to the
     * last; the script withdraws only those still to come by the Redis clock.
     */
    private List<ScheduleStateCall.Tick> waitingTicks(Declared entry) {
        List<ScheduleStateCall.Tick> ticks = new ArrayList<>();
        Instant tick = entry.schedule.rule().next(clock.instant().minus(LEAD).minus(TickPlan.GRACE));
        Instant until = clock.instant().plus(LEAD).plus(TickPlan.GRACE);
        while (!tick.isAfter(until) && ticks.size() < TickPlan.MAX_AHEAD) {
            ticks.add(new ScheduleStateCall.Tick(entry.schedule.keyOf(tick), tick.toEpochMilli()));
            tick = entry.schedule.rule().next(tick);
        }
        return ticks;
    }

    /** One pass over the schedules due for one; returns when the next should come. */
    private Instant pass() {
        Instant now = clock.instant();
        Instant next = now.plus(Duration.ofSeconds(1));
        for (Declared entry : declared.values()) {
            if (!entry.wakeAt.isAfter(now)) {
                try {
                    advance(entry, now);
                    if (entry.failing) {
                        entry.failing = false;
                        log.info("schedule {}: its ticks are sent again", entry.schedule.name());
                    }
                } catch (RuntimeException | LinkageError | AssertionError e) {
                    // an application's payload supplier or rule may throw an Error too: it fails its own schedule
                    entry.wakeAt = now.plus(Duration.ofSeconds(1));
                    if (!entry.failing) {
                        entry.failing = true;
                        log.warn("schedule {}: its ticks could not be sent ({}); tried again every second, said once"
                                + " until they are sent, and ticks missed meanwhile follow its misfire policy {}",
                                entry.schedule.name(), e.toString(), entry.schedule.misfire());
                    }
                }
            }
            if (entry.wakeAt.isBefore(next)) {
                next = entry.wakeAt;
            }
        }
        return next;
    }

    /** Plans and sends a schedule's due ticks; a plan made from an old view of Redis is made again, once. */
    private void advance(Declared entry, Instant now) {
        RecurringSchedule schedule = entry.schedule;
        Duration lead = schedule.overlap() == Overlap.SKIP ? Duration.ZERO : LEAD;
        // when this application already ran the schedule, the pass it planned: a later pass was held up here. Not for
        // overlap SKIP: the ticks held up would go together, and run back to back, which that overlap is to prevent
        Instant planned = schedule.overlap() != Overlap.SKIP && entry.last >= 0 && !entry.failing ? entry.wakeAt
                : null;
        for (int attempt = 0; attempt < 2; attempt++) {
            long known = entry.last;
            TickPlan plan = TickPlan.of(schedule, known > 0 ? Instant.ofEpochMilli(known) : null, now, lead, planned);
            if (plan.advanceTo() == null && known >= 0) {
                entry.wakeAt = plan.wakeAt();
                return;
            }
            // not knowing the latest tick, the call only learns it (it is stale whatever it carries): no payload is
            // asked of the application's supplier for ticks it would not send
            List<Outgoing> messages = known < 0 ? List.of() : outgoing(schedule, plan);
            ScheduleTickCall.Result result = Futures.join(scripts.run(entry.slot, call(entry, messages, plan, known)));
            entry.last = result.lastMs();
            switch (result.outcome()) {
                case PAUSED -> {
                    entry.wakeAt = now.plus(Duration.ofSeconds(1));
                    return;
                }
                case STALE -> {
                    continue;
                }
                case SENT -> {
                    journal(entry, messages, known, result.sent(), now);
                    report(entry, plan, result);
                    entry.wakeAt = plan.wakeAt();
                    return;
                }
            }
        }
        entry.wakeAt = now;
    }

    /** One tick's message as a pass sends it, kept for the journal until Redis has it. */
    private record Outgoing(TickPlan.Tick tick, String key, Map<String, String> headers, byte[] payload) {
    }

    private List<Outgoing> outgoing(RecurringSchedule schedule, TickPlan plan) {
        List<Outgoing> messages = new ArrayList<>(plan.ticks().size());
        TopicDefinition topic = topics.require(schedule.topic());
        for (TickPlan.Tick tick : plan.ticks()) {
            String key = schedule.keyOf(tick.tick());
            Payloads.Sealed sealed = payloads.seal(topic, key, schedule.headersOf(tick.tick()),
                    payloads.encode(schedule.nextPayload()));
            messages.add(new Outgoing(tick, key, sealed.headers(), sealed.bytes()));
        }
        return messages;
    }

    private ScheduleTickCall call(Declared entry, List<Outgoing> messages, TickPlan plan, long known) {
        RecurringSchedule schedule = entry.schedule;
        List<ScheduleTickCall.Tick> ticks = new ArrayList<>(messages.size());
        for (Outgoing message : messages) {
            ticks.add(new ScheduleTickCall.Tick(message.tick().tick().toEpochMilli(), message.key(),
                    message.tick().due().toEpochMilli(), Envelope.encodeNew(message.headers(), message.payload(),
                    message.tick().due().toEpochMilli(), 0, 0)));
        }
        long advanceTo = plan.advanceTo() == null ? 0 : plan.advanceTo().toEpochMilli();
        return new ScheduleTickCall(schedule.name(), keys.wakeChannel(entry.topic.name()), entry.slot.slot(),
                schedule.fingerprint(), known, advanceTo, schedule.overlap() == Overlap.SKIP, ticks);
    }

    /**
     * Tells the journal of the tick messages Redis stored: the last {@code sent} of those after the tick the call was
     * planned from, since schedule_tick.lua drops a tick for overlap only before it has sent one.
     */
    private void journal(Declared entry, List<Outgoing> messages, long known, long sent, Instant now) {
        if (journal == null || sent == 0) {
            return;
        }
        List<Outgoing> after = messages.stream().filter(m -> m.tick().tick().toEpochMilli() > known).toList();
        List<JournaledSend> sends = new ArrayList<>();
        for (Outgoing m : after.subList((int) Math.max(0, after.size() - sent), after.size())) {
            sends.add(new JournaledSend(entry.topic.name(), TopicType.FIXED_TIME, entry.slot.slot(), m.key(), false,
                    false, false, m.tick().due().toEpochMilli(), null, null, m.headers(), m.payload(), now));
        }
        try {
            Futures.join(journal.sent(sends));
        } catch (RuntimeException e) {
            log.warn("schedule {}: {} tick message(s) are in Redis, but the journal did not record them ({}); a"
                    + " restore would not bring them back", entry.schedule.name(), sends.size(), e.toString());
        }
    }

    private void report(Declared entry, TickPlan plan, ScheduleTickCall.Result result) {
        RecurringSchedule schedule = entry.schedule;
        if (result.sent() > 0) {
            metrics.scheduleTicks(schedule.name(), schedule.topic(), result.sent());
        }
        if (result.skipped() > 0) {
            metrics.scheduleSkipped(schedule.name(), schedule.topic(), result.skipped());
            log.debug("schedule {}: {} tick(s) skipped, the previous tick's message being still in flight",
                    schedule.name(), result.skipped());
        }
        if (plan.missed() > 0) {
            metrics.scheduleMisfires(schedule.name(), schedule.topic(), schedule.misfire().kind().name(), plan.missed());
            log.info("schedule {}: {} tick(s) fell while no application ran it; misfire policy {} sent {}",
                    schedule.name(), plan.missed(), schedule.misfire(), plan.caughtUp());
        }
        String recorded = result.fingerprint();
        if (!recorded.isEmpty() && !recorded.equals(schedule.fingerprint()) && !entry.conflictSaid) {
            entry.conflictSaid = true;
            log.warn("schedule {} is declared differently by another application: there {}, here {}. Each tick goes"
                    + " by the definition of the application that sends it; declare it alike everywhere",
                    schedule.name(), recorded, schedule.fingerprint());
        }
    }

    @Override
    public void close() {
        runner.close();
    }
}
