package dev.rmq.spring.listener;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanInitializationException;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Stages the endpoints the post-processor finds until every singleton exists, then hands each to the
 * registry with its container factory. Staging lets a listener bean be created before the factories and
 * the client it needs; an endpoint found later (a lazy bean) is registered at once.
 */
public class RmqListenerEndpointRegistrar {

    private final List<RmqListenerEndpoint> pending = new ArrayList<>();
    private @Nullable BeanFactory beanFactory;
    /** Null while the endpoints are staged. */
    private @Nullable RmqListenerEndpointRegistry registry;

    public void setBeanFactory(BeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    public synchronized void registerEndpoint(RmqListenerEndpoint endpoint) {
        RmqListenerEndpointRegistry registry = this.registry;
        if (registry == null) {
            pending.add(endpoint);
        } else {
            register(endpoint, registry);
        }
    }

    /** Registers the staged endpoints; from now on endpoints are registered as they come. */
    public synchronized void registerAllEndpoints(RmqListenerEndpointRegistry endpointRegistry) {
        this.registry = Objects.requireNonNull(endpointRegistry, "endpointRegistry");
        for (RmqListenerEndpoint endpoint : pending) {
            register(endpoint, endpointRegistry);
        }
        pending.clear();
    }

    private void register(RmqListenerEndpoint endpoint, RmqListenerEndpointRegistry registry) {
        RmqListenerContainerFactory factory = containerFactory(endpoint);
        try {
            registry.registerListenerContainer(endpoint, factory);
        } catch (IllegalArgumentException e) {
            throw new BeanInitializationException(endpoint.describe() + " cannot consume: " + e.getMessage(), e);
        }
    }

    private RmqListenerContainerFactory containerFactory(RmqListenerEndpoint endpoint) {
        BeanFactory beanFactory = Objects.requireNonNull(this.beanFactory, "beanFactory, set by the post-processor");
        String name = endpoint.containerFactory() != null ? endpoint.containerFactory()
                : RmqListenerContainerFactory.DEFAULT_BEAN_NAME;
        if (!beanFactory.containsBean(name)) {
            throw new BeanInitializationException(endpoint.describe() + " names the container factory '" + name
                    + "', but there is no bean of that name");
        }
        if (!beanFactory.isTypeMatch(name, RmqListenerContainerFactory.class)) {
            throw new BeanInitializationException(endpoint.describe() + " names the container factory '" + name
                    + "', but that bean is a " + beanFactory.getType(name) + ", not an RmqListenerContainerFactory");
        }
        return beanFactory.getBean(name, RmqListenerContainerFactory.class);
    }
}
