package dev.rmq.internal.coordination;

import dev.rmq.consumer.SlotAssignment;
import dev.rmq.consumer.SlotFencing;
import dev.rmq.consumer.SlotOwner;
import dev.rmq.consumer.StopReport;
import dev.rmq.internal.coordination.HeldSlots.Held;
import dev.rmq.topic.TopicDefinition;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.state.ConnectionState;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Keeps one container's workers on the slots ZooKeeper's plan gives them, with at most one worker per
 * slot in the whole cluster at any instant.
 *
 * <p>Each worker is an ephemeral member. Any instance that finds the plan stale (a member joined or
 * left) computes the next one with {@link SlotPlanner} and writes it with a version check ({@link PlanNode}), so all
 * instances converge on one plan. A worker polls a slot only while it holds the slot's ephemeral owner
 * znode, which the previous owner deletes only after its in-flight messages are acknowledged. Taking a
 * slot also writes a fresh fencing token into the slot's {@code owner} key in Redis; every script of the
 * slot checks it, so a worker that lost its slot without knowing it (a GC pause, a partition) can
 * neither poll nor acknowledge.
 *
 * <p>All reactions run on one thread, level-triggered: every event and a periodic tick just ask for a
 * reconcile, which compares the plan with what this instance holds and closes the gap.
 */
public final class ZooKeeperSlotAssignment implements SlotAssignment {

    private static final Logger log = LoggerFactory.getLogger(ZooKeeperSlotAssignment.class);
    private static final long TICK_MS = 1000;
    /** How long {@link #close()} may take when no bound is given, as when the coordinator closes it. */
    static final Duration DEFAULT_CLOSE_BOUND = Duration.ofSeconds(10);

    private final CuratorFramework curator;
    private final Membership membership;
    private final ZkPaths paths;
    private final SlotClaims claims;
    private final Consumer<ZooKeeperSlotAssignment> onClosed;
    private final ScheduledExecutorService executor;
    private final HeldSlots held = new HeldSlots();
    private final CallsInFlight calls = new CallsInFlight();
    /** Set by {@link #start}, on the assignment's thread; null before. */
    private @Nullable TopicDefinition topic;
    /** Written on the assignment's thread, read by the connection listener too. */
    private volatile Map<String, SlotOwner> workers = Map.of();
    /** Made by {@link #start}; null before. */
    private @Nullable CuratorCache cache;
    private boolean suspended;
    /** Set when the container begins to stop: reconciling ends, so that the close accounts for every slot. */
    private volatile boolean stopping;
    private volatile boolean closed;

    /**
     * @param curator    the started ZooKeeper client
     * @param membership who this instance is in ZooKeeper, and where its znodes go
     * @param fencing    the slots' fencing tokens in Redis
     * @param onClosed   told once the assignment has closed
     */
    public ZooKeeperSlotAssignment(CuratorFramework curator, Membership membership, SlotFencing fencing,
                                   Consumer<ZooKeeperSlotAssignment> onClosed) {
        this.curator = curator;
        this.membership = membership;
        this.paths = membership.paths();
        this.claims = new SlotClaims(curator, membership, fencing);
        this.onClosed = onClosed;
        this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "rmq-coordination-" + membership.instanceId());
            thread.setDaemon(true);
            return thread;
        });
    }

    @Override
    public void start(TopicDefinition definition, List<? extends SlotOwner> owners) {
        Map<String, SlotOwner> byId = new HashMap<>();
        for (SlotOwner owner : owners) {
            byId.put(memberId(owner), owner);
        }
        runOnThread(() -> {
            this.topic = definition;
            this.workers = byId;
            this.suspended = !curator.getZookeeperClient().isConnected();
            cache = CuratorCache.build(curator, paths.topic(definition.name()));
            cache.listenable().addListener((type, oldData, data) -> requestReconcile());
            cache.start();
            reconcile();
        });
        executor.scheduleWithFixedDelay(this::reconcile, TICK_MS, TICK_MS, TimeUnit.MILLISECONDS);
    }

    /** The container is stopping: the slots stay as they are until {@link #close(Duration)} gives them all back. */
    @Override
    public void stopping() {
        stopping = true;
    }

    /** Leaves the membership and gives back every slot, within {@link #DEFAULT_CLOSE_BOUND}. */
    @Override
    public void close() {
        close(DEFAULT_CLOSE_BOUND);
    }

    /**
     * Leaves the membership and gives back every slot once its worker has let it go: all slots at once, each its
     * fencing token in Redis and its owner znode in ZooKeeper. What Redis or ZooKeeper have not taken by the
     * bound is left to expire: a token makes the next owner wait out the slot's leases, a znode goes with the
     * session. A reconcile still in a call after a short grace has the call cut short, so that a silent ZooKeeper
     * does not hold the give-back past the bound. Both the container's stop and the coordinator's close end here, in
     * either order; only the first does anything.
     */
    @Override
    public StopReport close(Duration bound) {
        if (executor.isShutdown()) {
            return StopReport.NOTHING;
        }
        long start = System.nanoTime();
        long deadline = start + bound.toNanos();
        closed = true;
        CompletableFuture<List<CompletableFuture<SlotClaims.GivingUp>>> started = new CompletableFuture<>();
        executor.execute(() -> started.complete(giveUpEverything()));
        List<CompletableFuture<SlotClaims.GivingUp>> gives = GiveUps.await(started, calls, start, deadline);
        executor.shutdownNow();
        onClosed.accept(this);
        return GiveUps.report(gives, held.count(), start);
    }

    /** On the assignment's thread: stops assigning, and starts giving back every slot held once its worker let it go. */
    private List<CompletableFuture<SlotClaims.GivingUp>> giveUpEverything() {
        closed = true;
        if (cache != null) {
            cache.close();
        }
        List<CompletableFuture<SlotClaims.GivingUp>> gives = new ArrayList<>();
        TopicDefinition definition = topic;
        if (definition == null) {
            // never started: nothing was claimed, and no member created
            return gives;
        }
        for (Map.Entry<Integer, Held> entry : held.snapshot()) {
            int slot = entry.getKey();
            Held h = entry.getValue();
            gives.add(h.worker.revoke(slot).toCompletableFuture()
                    .thenApply(v -> claims.giveUpAsync(definition, slot, h.token, h.fence)));
        }
        held.clear();
        for (String member : workers.keySet()) {
            claims.deleteMemberInBackground(paths.member(definition.name(), member));
        }
        return gives;
    }

    /**
     * Follows the ZooKeeper connection: SUSPENDED pauses every slot, LOST gives them up, RECONNECTED resumes.
     * SUSPENDED and LOST stop the workers at once, from the listener's thread: the assignment's thread may be
     * stuck in a ZooKeeper call until the connection times out, and every handler started meanwhile is one the
     * next owner would have to wait for. A worker told to let its slots go finishes the message in hand,
     * acknowledges what it handled while its fencing token is still valid and hands back what it has not
     * started, so the next owner, once the session expired, finds no lease to wait for.
     *
     * @return how many slots the change concerns: those that stop (SUSPENDED), are given up (LOST) or are held
     *         and resume if still ours (RECONNECTED); for the coordinator's log line
     */
    public int onConnectionState(ConnectionState state) {
        int slots = held.count();
        // read now, on the listener's thread: the change concerns the slots claimed so far, not those a reconcile
        // still in a ZooKeeper call claims in the next session before this thread gets to the change
        long claimedBefore = held.claimsMade();
        if (state == ConnectionState.SUSPENDED || state == ConnectionState.LOST) {
            slots = Math.max(slots, stopWorkersNow());
        }
        later(() -> {
            switch (state) {
                case SUSPENDED -> {
                    suspended = true;
                    held.pause(claimedBefore);
                }
                case LOST -> {
                    suspended = true;
                    held.lose(claimedBefore, claims.currentSession());
                }
                case CONNECTED, RECONNECTED -> {
                    suspended = false;
                    resumeHeld();
                    reconcile();
                }
                default -> {
                }
            }
        });
        return slots;
    }

    /**
     * Revokes every slot every worker owns; {@link HeldSlots#pause(long)} then records the revokes on the
     * assignment's thread.
     * Returns how many slots were revoked.
     */
    private int stopWorkersNow() {
        int revoked = 0;
        for (SlotOwner worker : workers.values()) {
            for (int slot : worker.ownedSlots()) {
                worker.revoke(slot);
                revoked++;
            }
        }
        return revoked;
    }

    /** The worker ids of this container's workers as they appear under members/. */
    private String memberId(SlotOwner owner) {
        return SlotPlanner.memberName(membership.zone(), membership.instanceId() + "-" + owner.workerId());
    }

    private void requestReconcile() {
        later(this::reconcile);
    }

    /** Runs a task on the assignment's thread, unless the assignment has closed. */
    private void later(Runnable task) {
        try {
            executor.execute(task);
        } catch (RejectedExecutionException e) {
            // closed: nothing is assigned any more
        }
    }

    private void runOnThread(Runnable task) {
        later(() -> {
            try {
                task.run();
            } catch (RuntimeException e) {
                log.warn("slot assignment of {} failed: {}", topicName(), e.toString());
            }
        });
    }

    private void reconcile() {
        calls.run(this::reconcileNow);
    }

    private void reconcileNow() {
        if (closed || stopping || topic == null || suspended || !curator.getZookeeperClient().isConnected()) {
            return;
        }
        try {
            ensureMembers();
            SortedSet<String> members = new TreeSet<>(curator.getChildren().forPath(paths.members(topic.name())));
            Map<Integer, String> plan = PlanNode.current(curator, membership, topic, members);
            if (plan == null) {
                requestReconcile();
                return;
            }
            dropSlotsWorkersLost();
            for (Map.Entry<Integer, Held> entry : held.snapshot()) {
                String planned = plan.get(entry.getKey());
                if (!memberId(entry.getValue().worker).equals(planned)) {
                    release(entry.getKey(), entry.getValue());
                }
            }
            for (Map.Entry<Integer, String> entry : plan.entrySet()) {
                SlotOwner worker = workers.get(entry.getValue());
                if (worker != null && !held.contains(entry.getKey())) {
                    acquire(entry.getKey(), worker);
                }
            }
        } catch (Exception e) {
            log.debug("reconcile of {} failed, retrying on the next tick: {}", topicName(), e.toString());
        }
    }

    private void ensureMembers() throws Exception {
        TopicDefinition definition = started();
        for (String member : workers.keySet()) {
            claims.ensureMember(paths.member(definition.name(), member));
        }
    }

    /** A worker fenced out of a slot (it saw RMQ_FENCED) drops it by itself; forget it here too. */
    private void dropSlotsWorkersLost() {
        for (Map.Entry<Integer, Held> entry : held.snapshot()) {
            Held h = entry.getValue();
            if (h.paused == null && !h.releasing && !h.worker.ownedSlots().contains(entry.getKey())) {
                giveBack(entry.getKey(), h);
            }
        }
    }

    private void acquire(int slot, SlotOwner worker) throws Exception {
        String token = memberId(worker) + "/" + UUID.randomUUID();
        Optional<SlotClaims.Claimed> claimed = claims.claim(started(), slot, token);
        if (claimed.isPresent()) {
            held.add(slot, worker, token, claimed.get().fence(), claimed.get().session());
            worker.assign(slot, claimed.get().fence(), claimed.get().taken().holdOff());
        }
    }

    /** Takes a slot back from its worker, then gives it back; the next owner starts once both are done. */
    private void release(int slot, Held h) {
        if (h.releasing) {
            return;
        }
        h.releasing = true;
        h.worker.revoke(slot).whenComplete((v, e) -> runOnThread(() -> giveBack(slot, h)));
    }

    /**
     * Gives a slot back in the background, never blocking this thread on Redis or ZooKeeper: the slot stays held,
     * as being released, until both have answered. What they did not take is left to expire (token, session).
     */
    private void giveBack(int slot, Held h) {
        h.releasing = true;
        TopicDefinition definition = started();
        SlotClaims.GivingUp giving = claims.giveUpAsync(definition, slot, h.token, h.fence);
        giving.both().whenComplete((v, e) -> {
            if (!giving.tokenCleared().getNow(false) || !giving.znodeDeleted().getNow(false)) {
                log.debug("topic {} slot {}: given back with {}{} left to expire", definition.name(), slot,
                        giving.tokenCleared().getNow(false) ? "" : "its fencing token ",
                        giving.znodeDeleted().getNow(false) ? "" : "its owner znode");
            }
            runOnThread(() -> {
                held.remove(slot, h);
                reconcile();
            });
        });
    }

    /** RECONNECTED with the same session: poll again the slots whose owner znodes are still ours. */
    private void resumeHeld() {
        for (Map.Entry<Integer, Held> entry : held.snapshot()) {
            int slot = entry.getKey();
            Held h = entry.getValue();
            CompletionStage<Void> paused = h.paused;
            if (paused == null || h.releasing) {
                continue;
            }
            if (!claims.stillOurs(started(), slot, h.token)) {
                held.remove(slot, h);
                continue;
            }
            paused.whenComplete((v, e) -> later(() -> {
                if (held.get(slot) == h && !h.releasing && !suspended && !closed) {
                    h.paused = null;
                    h.worker.assign(slot, h.fence);
                }
            }));
        }
    }

    /** The topic, once {@link #start} has run on the assignment's thread: nothing is claimed before. */
    private TopicDefinition started() {
        return Objects.requireNonNull(topic, "the assignment has not started");
    }

    private String topicName() {
        return topic == null ? "?" : topic.name();
    }
}
