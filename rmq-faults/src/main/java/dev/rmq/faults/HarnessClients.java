package dev.rmq.faults;

import dev.rmq.RmqClient;
import dev.rmq.journal.jdbc.JdbcJournal;
import dev.rmq.events.RmqEventListener;
import dev.rmq.topic.TopicDefinition;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RedissonClient;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * One Redisson client and one rmq client per Redis deployment of a run; every process of the harness holds
 * one of these, and each topic is served by the clients of the deployment that holds it.
 */
final class HarnessClients implements AutoCloseable {

    private final Map<Deployment, RedissonClient> redisson = new EnumMap<>(Deployment.class);
    private final Map<Deployment, RmqClient> rmq = new EnumMap<>(Deployment.class);

    private HarnessClients() {
    }

    /**
     * Connects to every deployment in {@code addresses}.
     *
     * @param retryAttempts Redisson's own resends of a command that got no reply (see {@link RedisClients#create})
     */
    static HarnessClients connect(Map<Deployment, List<String>> addresses, int retryAttempts) {
        return connect(addresses, retryAttempts, RmqEventListener.NONE);
    }

    /** As {@link #connect(Map, int)}, with the rmq clients' consumer events going to {@code events}. */
    static HarnessClients connect(Map<Deployment, List<String>> addresses, int retryAttempts, RmqEventListener events) {
        return connect(addresses, retryAttempts, events, null);
    }

    /** As {@link #connect(Map, int, RmqEventListener)}, with the standalone client journaled when a journal is given. */
    static HarnessClients connect(Map<Deployment, List<String>> addresses, int retryAttempts, RmqEventListener events,
                                  @Nullable JdbcJournal journal) {
        HarnessClients clients = new HarnessClients();
        try {
            addresses.forEach((deployment, nodes) -> {
                RedissonClient client = RedisClients.create(deployment, nodes, retryAttempts);
                clients.redisson.put(deployment, client);
                RmqClient.Builder rmq = RmqClient.builder(client).topics(Workload.topics(deployment)).events(events)
                        .keyRing(Workload.KEY_RING);
                if (journal != null && deployment == Deployment.STANDALONE) {
                    rmq.journal(journal);
                }
                clients.rmq.put(deployment, rmq.build());
            });
        } catch (RuntimeException e) {
            clients.close();
            throw e;
        }
        return clients;
    }

    Set<Deployment> deployments() {
        return rmq.keySet();
    }

    RmqClient rmq(Deployment deployment) {
        RmqClient client = rmq.get(deployment);
        if (client == null) {
            throw new IllegalArgumentException("this run has no " + deployment.cliName() + " Redis");
        }
        return client;
    }

    RedissonClient redisson(Deployment deployment) {
        RedissonClient client = redisson.get(deployment);
        if (client == null) {
            throw new IllegalArgumentException("this run has no " + deployment.cliName() + " Redis");
        }
        return client;
    }

    /** The rmq client of the deployment that holds {@code topic}. */
    RmqClient forTopic(String topic) {
        return rmq(Workload.deploymentOf(topic));
    }

    /** The topics of every deployment, standalone first. */
    List<TopicDefinition> topics() {
        List<TopicDefinition> topics = new ArrayList<>();
        rmq.keySet().forEach(d -> topics.addAll(Workload.topics(d)));
        return topics;
    }

    /** The topics without job controls of every deployment, standalone first: where the probes go. */
    List<TopicDefinition> plainTopics() {
        List<TopicDefinition> topics = new ArrayList<>();
        rmq.keySet().forEach(d -> topics.addAll(Workload.plainTopics(d)));
        return topics;
    }

    @Override
    public void close() {
        for (RedissonClient client : redisson.values()) {
            try {
                client.shutdown(0, 2, TimeUnit.SECONDS);
            } catch (RuntimeException e) {
                // shutting down anyway
            }
        }
    }
}
