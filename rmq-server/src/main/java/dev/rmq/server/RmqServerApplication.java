package dev.rmq.server;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * rmq as a server: the configured topics behind a JSON HTTP API under {@code /api/v1}, for producers and pulling
 * consumers that are not on the JVM. With nothing configured it brings its own Redis and ZooKeeper
 * ({@link dev.rmq.server.embedded.EmbeddedInfrastructure}) and listens on loopback only, so
 * {@code java -jar rmq-server.jar} is all it takes to try it.
 */
@SpringBootApplication
public class RmqServerApplication {

    public static void main(String[] args) {
        SpringApplication.run(RmqServerApplication.class, args);
    }
}
