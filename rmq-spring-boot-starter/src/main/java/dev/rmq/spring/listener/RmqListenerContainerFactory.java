package dev.rmq.spring.listener;

import dev.rmq.consumer.RmqConsumerContainer;

/**
 * Builds the container of one listener endpoint. An application may define several, under their own
 * bean names, and pick one with {@code @RmqListener(containerFactory = "...")}.
 */
public interface RmqListenerContainerFactory {

    /** The bean name of the factory used when a listener names none. */
    String DEFAULT_BEAN_NAME = "rmqListenerContainerFactory";

    /**
     * A new, stopped container for the endpoint.
     *
     * @throws IllegalArgumentException when the endpoint cannot be served, e.g. its topic is unknown
     */
    RmqConsumerContainer<?> createContainer(RmqListenerEndpoint endpoint);

    /** Whether containers of an endpoint that does not say start with the application. */
    default boolean isAutoStartup() {
        return true;
    }
}
