package dev.rmq.coordination;

import dev.rmq.consumer.ConsumeResult;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.redisson.api.RList;
import org.redisson.client.codec.StringCodec;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * A consumer application in its own JVM, for {@link SeparateProcessTests}. It logs every handler start
 * and end, with the Redis clock, to the Redis list {@code worker-log}; a message whose key starts with
 * {@code stall} blocks its first attempt forever, so the parent can kill the process in the middle of it.
 *
 * <p>Arguments: Redis address, ZooKeeper connect string, node name.
 */
public final class WorkerProcess {

    static final TopicDefinition TOPIC = TopicDefinition.builder("procs", TopicType.PRIORITY).slotAmount(4)
            .leaseTimeout(Duration.ofSeconds(3)).build();

    private WorkerProcess() {
    }

    public static void main(String[] args) throws Exception {
        String redisAddress = args[0];
        String zkConnect = args[1];
        String name = args[2];
        CountDownLatch never = new CountDownLatch(1);
        ZooKeeperNode[] self = new ZooKeeperNode[1];
        self[0] = new ZooKeeperNode(name, redisAddress, zkConnect, TOPIC, 1, m -> {
            RList<String> log = self[0].redisson.getList("worker-log", StringCodec.INSTANCE);
            long now = redisMicros(self[0].redisson);
            long lease = m.leaseDeadline().getEpochSecond() * 1_000_000 + m.leaseDeadline().getNano() / 1000;
            log.add(String.join("|", "start", name, String.valueOf(m.slot()), m.key(), String.valueOf(m.attempt()),
                    String.valueOf(now), String.valueOf(lease)));
            if (m.key().startsWith("stall") && m.attempt() == 1) {
                never.await();
            }
            log.add(String.join("|", "end", name, String.valueOf(m.slot()), m.key(), String.valueOf(m.attempt()),
                    String.valueOf(redisMicros(self[0].redisson)), String.valueOf(lease)));
            return ConsumeResult.success();
        });
        self[0].start();
        System.out.println("STARTED " + name);
        System.out.flush();
        never.await();
    }

    /** The Redis clock in microseconds: the one clock both processes and the test share. */
    static long redisMicros(org.redisson.api.RedissonClient redisson) {
        List<Object> time = redisson.getScript(StringCodec.INSTANCE)
                .eval(org.redisson.api.RScript.Mode.READ_ONLY, "return redis.call('TIME')",
                        org.redisson.api.RScript.ReturnType.LIST);
        return Long.parseLong(String.valueOf(time.get(0))) * 1_000_000 + Long.parseLong(String.valueOf(time.get(1)));
    }
}
