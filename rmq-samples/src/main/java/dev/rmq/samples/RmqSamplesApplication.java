package dev.rmq.samples;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The rmq sample: three use cases, each on its own topic type, behind a small HTTP API. With nothing
 * configured it brings its own Redis and ZooKeeper ({@link EmbeddedInfrastructure}), so
 * {@code java -jar rmq-samples.jar} is all it takes.
 */
@SpringBootApplication
public class RmqSamplesApplication {

    public static void main(String[] args) {
        SpringApplication.run(RmqSamplesApplication.class, args);
    }
}
