/**
 * The embedded default of a Spring Boot application (rmq's sample, rmq-server): a local Redis and ZooKeeper when
 * the configuration names none. Needs Spring Boot on the class path, which rmq-embedded itself does not bring.
 */
@NullMarked
package dev.rmq.embedded.boot;

import org.jspecify.annotations.NullMarked;
