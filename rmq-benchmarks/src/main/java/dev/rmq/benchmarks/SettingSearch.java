package dev.rmq.benchmarks;

import dev.rmq.RmqClient;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;

import java.util.Optional;

/**
 * Chooses the settings of the throughput rounds before they start: rmq's consume, RStream's consumers and
 * RDelayedQueue's offers and consumers, each the fastest of the plan's candidates, so that every case runs at
 * its best and the report of which setting that was holds for the peers too.
 */
final class SettingSearch {

    private final Context context;
    private final RmqCases rmq;
    private final PeerCases peers;

    SettingSearch(Context context, RmqCases rmq, PeerCases peers) {
        this.context = context;
        this.rmq = rmq;
        this.peers = peers;
    }

    BestSettings find() {
        BestSettings defaults = BestSettings.DEFAULTS;
        Plan.ConsumeSetting consume = consume().map(GridSearch.Candidate::setting).orElse(defaults.consume());
        Plan.StreamSetting stream = stream().map(GridSearch.Candidate::setting).orElse(defaults.stream());
        GridSearch.Candidate<Integer> offers = delayedOffers()
                .orElse(new GridSearch.Candidate<>(defaults.delayedInFlight(), defaults.delayedProduceRate()));
        Plan.DelayedSetting delayed = delayedConsumers(offers).map(GridSearch.Candidate::setting).orElse(defaults.delayed());
        return new BestSettings(consume, stream, offers.setting(), offers.rate(), delayed);
    }

    private Optional<GridSearch.Candidate<Plan.ConsumeSetting>> consume() {
        Plan plan = context.plan();
        return new GridSearch<Plan.ConsumeSetting>(context.report(), "consume.candidates", "  consume %-32s %10.0f msgs/s",
                (node, setting) -> {
                    node.put("slots", setting.slots());
                    node.put("threads", setting.threads());
                    node.put("batch", setting.batch());
                }).best(plan.consumeGrid(), setting -> {
                    TopicDefinition topic = RmqCases.topic("grid" + setting.slots(), TopicType.RANGE_MERGE, setting.slots());
                    RmqClient client = rmq.client(topic);
                    rmq.fillDue(client, topic.name(), plan.grid());
                    Measured m = rmq.consume(client, topic.name(), plan.grid(), setting.consumerSettings());
                    context.probe().flushAll();
                    return m.rate();
                });
    }

    private Optional<GridSearch.Candidate<Plan.StreamSetting>> stream() {
        Plan plan = context.plan();
        return new GridSearch<Plan.StreamSetting>(context.report(), "peers.redisson_rstream.candidates",
                "  stream  %-32s %10.0f msgs/s", (node, setting) -> {
                    node.put("threads", setting.threads());
                    node.put("count", setting.count());
                }).best(plan.streamGrid(), setting -> {
                    peers.streamProduce("grid-stream", plan.grid(), PeerRound.STREAM_BATCH, PeerRound.STREAM_IN_FLIGHT);
                    peers.streamGroup("grid-stream");
                    Measured m = peers.streamConsume("grid-stream", plan.grid(), setting.threads(), setting.count());
                    context.probe().flushAll();
                    return m.rate();
                });
    }

    /** RDelayedQueue's offers in flight that produce fastest. */
    private Optional<GridSearch.Candidate<Integer>> delayedOffers() {
        Plan plan = context.plan();
        return new GridSearch<Integer>(context.report(), "peers.redisson_delayed_queue.produce_candidates",
                "  delayed offers, %-23s %10.0f msgs/s", (node, inFlight) -> node.put("in_flight", inFlight))
                .best(plan.delayedInFlight(), inFlight -> {
                    Measured m = peers.delayedProduce("grid-delayed", plan.delayed(), inFlight);
                    context.probe().flushAll();
                    return m.rate();
                });
    }

    /**
     * RDelayedQueue's consumer threads and drain that take messages fastest once they are due, tried on offers
     * made as the best offer setting makes them.
     */
    private Optional<GridSearch.Candidate<Plan.DelayedSetting>> delayedConsumers(GridSearch.Candidate<Integer> offers) {
        return new GridSearch<Plan.DelayedSetting>(context.report(), "peers.redisson_delayed_queue.consume_candidates",
                "  delayed %-32s %10.0f msgs/s", (node, setting) -> {
                    node.put("threads", setting.threads());
                    node.put("drain", setting.drain());
                }).best(context.plan().delayedGrid(), setting -> {
                    Measured m = PeerRound.delayedConsume(peers, context.plan(), offers.setting(), offers.rate(), setting);
                    context.probe().flushAll();
                    return m.rate();
                });
    }
}
