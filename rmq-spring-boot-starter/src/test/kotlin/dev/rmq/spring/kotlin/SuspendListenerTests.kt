package dev.rmq.spring.kotlin

import dev.rmq.consumer.ConsumeResult
import dev.rmq.consumer.RmqMessage
import dev.rmq.dead.RmqDeadQueue
import dev.rmq.embedded.RedisServer
import dev.rmq.producer.OutgoingMessage
import dev.rmq.producer.RmqProducer
import dev.rmq.spring.annotation.RmqListener
import dev.rmq.testsupport.RedisTestServers
import kotlinx.coroutines.delay
import org.assertj.core.api.Assertions.assertThat
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Test
import org.springframework.beans.factory.annotation.Autowired
import org.springframework.boot.autoconfigure.EnableAutoConfiguration
import org.springframework.boot.test.context.SpringBootTest
import org.springframework.context.annotation.Bean
import org.springframework.context.annotation.Configuration
import org.springframework.test.annotation.DirtiesContext
import org.springframework.test.context.DynamicPropertyRegistry
import org.springframework.test.context.DynamicPropertySource
import java.time.Duration
import java.util.concurrent.CopyOnWriteArrayList

/**
 * Kotlin `suspend` listeners against a real redis-server: the message is committed when the function returns after
 * suspending, retried when it throws after suspending, and one slot's messages still run one after another.
 */
@SpringBootTest(classes = [SuspendListenerTests.App::class], properties = [
    "rmq.topics.greetings.type=PRIORITY",
    "rmq.topics.greetings.slot-amount=1",
    "rmq.topics.greetings.lease-timeout=1s",
    "rmq.topics.refusals.type=PRIORITY",
    "rmq.topics.refusals.slot-amount=1",
    "rmq.topics.refusals.max-retries=1",
    "rmq.topics.refusals.backoff.initial=100ms",
    "rmq.topics.refusals.backoff.max=100ms",
    "rmq.listener.idle-poll=200ms"])
@DirtiesContext
class SuspendListenerTests {

    companion object {
        private val redis: RedisServer = RedisTestServers.newStandalone()

        @JvmStatic
        @DynamicPropertySource
        fun servers(properties: DynamicPropertyRegistry) {
            properties.add("rmq.redis.address") { redis.address() }
        }

        @JvmStatic
        @AfterAll
        fun stopRedis() {
            redis.close()
        }
    }

    @Autowired
    lateinit var producer: RmqProducer

    @Autowired
    lateinit var deadQueue: RmqDeadQueue

    @Autowired
    lateinit var listeners: Listeners

    @Test
    fun aSuspendListenerIsCommittedWhenItReturnsAfterSuspendingEvenPastItsLease() {
        for (i in 0 until 3) {
            producer.send(OutgoingMessage.priority("greetings", "hello $i", 100L - i).withKey("g$i"))
        }

        await().atMost(Duration.ofSeconds(15)).until { listeners.greeted.size == 3 }
        // each suspends for one and a half leases: none may be delivered twice, none may overlap the next
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3)).until { listeners.greeted.size == 3 }
        assertThat(listeners.greeted).containsExactly("g0#1", "g1#1", "g2#1")
        assertThat(listeners.mostAtOnce).isEqualTo(1)
    }

    @Test
    fun aSuspendListenerThatThrowsAfterSuspendingIsRetriedThenDead() {
        producer.send(OutgoingMessage.priority("refusals", "no", 100L).withKey("r0"))

        await().atMost(Duration.ofSeconds(10)).until { deadQueue.count("refusals") == 1L }
        assertThat(listeners.refused).containsExactly("r0#1", "r0#2")
        assertThat(deadQueue.list("refusals", 0, 0, 1)[0].lastError()).contains("refused after suspending")
    }

    class Listeners {
        val greeted: MutableList<String> = CopyOnWriteArrayList()
        val refused: MutableList<String> = CopyOnWriteArrayList()
        @Volatile
        var running = 0
        @Volatile
        var mostAtOnce = 0

        @RmqListener(topic = "greetings")
        suspend fun greet(message: RmqMessage<String>): ConsumeResult {
            synchronized(this) {
                running++
                mostAtOnce = maxOf(mostAtOnce, running)
            }
            delay(1_500)
            greeted.add("${message.key()}#${message.attempt()}")
            synchronized(this) { running-- }
            return ConsumeResult.success()
        }

        @RmqListener(topic = "refusals")
        suspend fun refuse(payload: String, message: RmqMessage<String>) {
            refused.add("${message.key()}#${message.attempt()}")
            delay(10)
            throw IllegalStateException("refused after suspending: $payload")
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    class App {
        @Bean
        fun listeners() = Listeners()
    }
}
