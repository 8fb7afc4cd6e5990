package dev.rmq.outbox.jdbc;

import dev.rmq.RmqClient;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.ds.PGSimpleDataSource;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * An application in a JVM of its own, for the test that kills it: it relays its outbox while it writes orders, ten
 * per transaction, each with its send, and says after each commit how many it has committed. Arguments: the Redis
 * address, the JDBC URL, the number of orders.
 */
public final class OutboxApplication {

    static final TopicDefinition ORDERS = TopicDefinition.builder("orders", TopicType.PRIORITY).slotAmount(4).build();

    private OutboxApplication() {
    }

    public static void main(String[] args) throws Exception {
        String redisAddress = args[0];
        DataSource dataSource = dataSource(args[1]);
        int orders = Integer.parseInt(args[2]);
        Config config = new Config();
        config.useSingleServer().setAddress(redisAddress);
        RedissonClient redisson = Redisson.create(config);
        RmqClient client = RmqClient.builder(redisson).topic(ORDERS).build();
        JdbcOutbox outbox = JdbcOutbox.builder(dataSource, client).batchSize(20).pollInterval(Duration.ofMillis(5))
                .claimTimeout(Duration.ofSeconds(2)).build();
        outbox.start();
        for (int from = 0; from < orders; from += 10) {
            try (Connection connection = dataSource.getConnection()) {
                connection.setAutoCommit(false);
                List<OutgoingMessage> sends = new ArrayList<>();
                try (PreparedStatement insert = connection.prepareStatement("INSERT INTO kill_orders VALUES (?)")) {
                    for (int i = from; i < from + 10; i++) {
                        insert.setString(1, "order-" + i);
                        insert.addBatch();
                        sends.add(OutgoingMessage.priority("orders", "order " + i, 50).withKey("order-" + i));
                    }
                    insert.executeBatch();
                }
                outbox.sendAll(connection, sends);
                connection.commit();
            }
            System.out.println("committed " + (from + 10));
            System.out.flush();
        }
        System.out.println("all committed");
        System.out.flush();
        // the application runs on until the test kills it: the sleep is the point
        Thread.sleep(Long.MAX_VALUE);
    }

    static DataSource dataSource(String jdbcUrl) throws SQLException {
        if (jdbcUrl.startsWith("jdbc:postgresql:")) {
            PGSimpleDataSource postgres = new PGSimpleDataSource();
            postgres.setUrl(jdbcUrl);
            return postgres;
        }
        return new MariaDbDataSource(jdbcUrl);
    }
}
