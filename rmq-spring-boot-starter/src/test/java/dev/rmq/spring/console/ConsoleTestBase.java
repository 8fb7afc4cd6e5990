package dev.rmq.spring.console;

import dev.rmq.RmqClient;
import dev.rmq.spring.RedisAndZooKeeper;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** An application with the console on a real web server, on a redis-server of the test class's own. */
@ExtendWith(RedisAndZooKeeper.class)
abstract class ConsoleTestBase {

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
    }

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry properties) {
        properties.add("rmq.redis.address", () -> RedisAndZooKeeper.redis().address());
    }

    @LocalServerPort
    int port;

    @Autowired
    RmqClient client;

    /** The console at {@code path} on this application's server. */
    ConsoleHttp console(String path) {
        return new ConsoleHttp("http://127.0.0.1:" + port + path + "/");
    }
}
