/**
 * The annotation users put on their consumer methods: {@link dev.rmq.spring.annotation.RmqListener}.
 * What happens to it afterwards (endpoint, registrar, registry, containers) lives in
 * {@code dev.rmq.spring.listener}.
 */
@NullMarked
package dev.rmq.spring.annotation;

import org.jspecify.annotations.NullMarked;
