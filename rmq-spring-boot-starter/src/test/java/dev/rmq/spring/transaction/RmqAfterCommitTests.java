package dev.rmq.spring.transaction;

import dev.rmq.RmqClient;
import dev.rmq.producer.BacklogFullException;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.RmqProducer;
import dev.rmq.producer.SendDroppedException;
import dev.rmq.producer.SendReceipt;
import dev.rmq.spring.ApplicationDatabase;
import dev.rmq.spring.RedisAndZooKeeper;
import dev.rmq.spring.autoconfigure.RmqAutoConfiguration;
import dev.rmq.spring.autoconfigure.RmqRedisAutoConfiguration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

import javax.sql.DataSource;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Sends inside a Spring transaction on a real PostgreSQL wait for its commit: a rollback sends nothing, a commit
 * sends once, and the receipts say which.
 */
@ExtendWith({RedisAndZooKeeper.class, ApplicationDatabase.class, OutputCaptureExtension.class})
class RmqAfterCommitTests {

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RmqRedisAutoConfiguration.class, RmqAutoConfiguration.class,
                    RmqTransactionAutoConfiguration.class))
            .withUserConfiguration(ApplicationDatabase.Beans.class)
            .withPropertyValues("rmq.redis.address=" + RedisAndZooKeeper.redis().address(),
                    "rmq.topics.orders.type=PRIORITY", "rmq.topics.orders.slot-amount=1",
                    "rmq.topics.capped.type=PRIORITY", "rmq.topics.capped.slot-amount=1",
                    "rmq.topics.capped.max-backlog=1");

    @BeforeEach
    void emptyRedis() {
        RedisAndZooKeeper.redis().command("FLUSHALL");
    }

    private static OutgoingMessage order(String key) {
        return OutgoingMessage.priority("orders", "timeout of " + key, 50).withKey(key);
    }

    private static boolean queued(RmqProducer producer, String key) {
        return producer.get(MessageRef.of("orders", key)).isPresent();
    }

    private static int savedOrders(JdbcTemplate jdbc, String key) {
        return jdbc.queryForObject("SELECT count(*) FROM after_commit_orders WHERE id = ?", Integer.class, key);
    }

    private static JdbcTemplate table(DataSource dataSource) {
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        jdbc.execute("CREATE TABLE IF NOT EXISTS after_commit_orders (id VARCHAR(64))");
        return jdbc;
    }

    @Test
    void aCommittedTransactionSendsOnceAfterTheCommitAndItsReceiptSaysSo() {
        contextRunner.run(context -> {
            RmqProducer producer = context.getBean(RmqProducer.class);
            JdbcTemplate jdbc = table(context.getBean(DataSource.class));
            TransactionTemplate transaction = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
            CompletableFuture<CompletionStage<SendReceipt>> async = new CompletableFuture<>();

            SendReceipt deferred = transaction.execute(status -> {
                jdbc.update("INSERT INTO after_commit_orders VALUES (?)", "o-1");
                SendReceipt receipt = producer.send(order("o-1"));
                async.complete(producer.sendAsync(order("o-2")));
                assertThat(queued(producer, "o-1")).as("before the commit").isFalse();
                assertThat(async.join().toCompletableFuture()).as("the stage before the commit").isNotDone();
                return receipt;
            });

            assertThat(deferred.outcome()).isEqualTo(SendReceipt.Outcome.DEFERRED);
            assertThat(deferred.key()).isEqualTo("o-1");
            assertThat(deferred.slot()).isZero();
            assertThat(deferred.written()).isFalse();
            assertThat(savedOrders(jdbc, "o-1")).isEqualTo(1);
            SendReceipt sent = async.join().toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertThat(sent.outcome()).as("the real outcome, once sent").isEqualTo(SendReceipt.Outcome.ADDED);
            assertThat(queued(producer, "o-1")).isTrue();
            assertThat(queued(producer, "o-2")).isTrue();
            assertThat(context.getBean(RmqClient.class).inspector().counts("orders").total().waiting())
                    .as("each sent once").isEqualTo(2);
        });
    }

    @Test
    void aRolledBackTransactionSendsNothingAndItsAsynchronousSendSaysWhy() {
        contextRunner.run(context -> {
            RmqProducer producer = context.getBean(RmqProducer.class);
            JdbcTemplate jdbc = table(context.getBean(DataSource.class));
            TransactionTemplate transaction = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
            CompletableFuture<CompletionStage<SendReceipt>> async = new CompletableFuture<>();

            assertThatThrownBy(() -> transaction.executeWithoutResult(status -> {
                jdbc.update("INSERT INTO after_commit_orders VALUES (?)", "o-3");
                producer.send(order("o-3"));
                async.complete(producer.sendAsync(order("o-4")));
                producer.sendAll(List.of(order("o-5"), order("o-6")));
                throw new IllegalStateException("the order could not be saved");
            })).hasMessage("the order could not be saved");

            assertThat(savedOrders(jdbc, "o-3")).isZero();
            assertThatThrownBy(() -> async.join().toCompletableFuture().get(10, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).cause().isInstanceOf(SendDroppedException.class)
                    .hasMessageContaining("'o-4'").hasMessageContaining("rolled back");
            assertThat(context.getBean(RmqClient.class).inspector().counts("orders").total().waiting())
                    .as("nothing sent").isZero();
        });
    }

    @Test
    void atOnceSendsInsideTheTransactionWhateverBecomesOfIt() {
        contextRunner.run(context -> {
            RmqProducer producer = context.getBean(RmqProducer.class);
            TransactionTemplate transaction = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));

            transaction.executeWithoutResult(status -> {
                assertThat(producer.atOnce().send(order("now")).outcome()).isEqualTo(SendReceipt.Outcome.ADDED);
                assertThat(queued(producer, "now")).isTrue();
                status.setRollbackOnly();
            });

            assertThat(queued(producer, "now")).isTrue();
        });
    }

    @Test
    void outsideATransactionASendGoesAtOnce() {
        contextRunner.run(context -> {
            RmqProducer producer = context.getBean(RmqProducer.class);

            assertThat(producer.send(order("plain")).outcome()).isEqualTo(SendReceipt.Outcome.ADDED);
            assertThat(queued(producer, "plain")).isTrue();
        });
    }

    @Test
    void turnedOffSendsGoAtOnceInsideTransactionsToo() {
        contextRunner.withPropertyValues("rmq.producer.after-commit=false").run(context -> {
            assertThat(context).doesNotHaveBean(TransactionSendHold.class);
            RmqProducer producer = context.getBean(RmqProducer.class);
            TransactionTemplate transaction = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));

            transaction.executeWithoutResult(status -> {
                assertThat(producer.send(order("early")).outcome()).isEqualTo(SendReceipt.Outcome.ADDED);
                status.setRollbackOnly();
            });

            assertThat(queued(producer, "early")).isTrue();
        });
    }

    @Test
    void badInputFailsInsideTheTransactionWhereItWasSent() {
        contextRunner.run(context -> {
            RmqProducer producer = context.getBean(RmqProducer.class);
            TransactionTemplate transaction = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));

            assertThatThrownBy(() -> transaction.executeWithoutResult(status ->
                    producer.send(OutgoingMessage.priority("no-such-topic", "x", 50))))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no-such-topic");
        });
    }

    @Test
    void aSendRefusedAfterTheCommitFailsItsStageAndIsLogged(CapturedOutput output) {
        contextRunner.run(context -> {
            RmqProducer producer = context.getBean(RmqProducer.class);
            TransactionTemplate transaction = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
            CompletableFuture<CompletionStage<SendReceipt>> second = new CompletableFuture<>();

            transaction.executeWithoutResult(status -> {
                producer.sendAsync(OutgoingMessage.priority("capped", "first", 50).withKey("c-1"));
                second.complete(producer.sendAsync(OutgoingMessage.priority("capped", "second", 50).withKey("c-2")));
            });

            assertThatThrownBy(() -> second.join().toCompletableFuture().get(10, TimeUnit.SECONDS))
                    .cause().isInstanceOf(BacklogFullException.class);
            assertThat(context.getBean(RmqClient.class).inspector().counts("capped").total().waiting()).isEqualTo(1);
            assertThat(output.getOut()).contains("failed after the commit: 'c-2' to capped (slot 0) is not queued");
        });
    }

    @Test
    void aTransactionOfItsOwnInsideAnotherSendsWhenItCommitsWhateverBecomesOfTheOuterOne() {
        contextRunner.run(context -> {
            RmqProducer producer = context.getBean(RmqProducer.class);
            PlatformTransactionManager manager = context.getBean(PlatformTransactionManager.class);
            TransactionTemplate outer = new TransactionTemplate(manager);
            TransactionTemplate inner = new TransactionTemplate(manager);
            inner.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);

            outer.executeWithoutResult(status -> {
                producer.send(order("outer-before"));
                inner.executeWithoutResult(nested -> producer.send(order("inner")));
                assertThat(queued(producer, "inner")).as("sent when the inner transaction committed").isTrue();
                producer.send(order("outer-after"));
                status.setRollbackOnly();
            });

            assertThat(queued(producer, "outer-before")).isFalse();
            assertThat(queued(producer, "outer-after")).isFalse();
            assertThat(queued(producer, "inner")).isTrue();
        });
    }

    @Test
    void heldSendsGoOutInTheOrderTheyWereMade() {
        contextRunner.run(context -> {
            RmqProducer producer = context.getBean(RmqProducer.class);
            TransactionTemplate transaction = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));

            CompletionStage<SendReceipt> last = transaction.execute(status -> {
                producer.send(OutgoingMessage.priority("orders", "first", 50).withKey("same"));
                return producer.sendAsync(OutgoingMessage.priority("orders", "second", 50).withKey("same"));
            });

            assertThat(last.toCompletableFuture().get(10, TimeUnit.SECONDS).merged()).isTrue();
            assertThat(producer.get(MessageRef.of("orders", "same")).orElseThrow().payloadText())
                    .as("the later send's content").contains("second");
        });
    }
}
