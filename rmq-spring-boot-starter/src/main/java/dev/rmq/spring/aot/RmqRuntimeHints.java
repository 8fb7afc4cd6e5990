package dev.rmq.spring.aot;

import dev.rmq.spring.autoconfigure.RmqProperties;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * What rmq reaches at run time that an ahead-of-time build or a native image cannot see in the code: its Lua
 * scripts, read as class-path resources, and the exceptions its listeners do not retry by default, which may be
 * named in {@code rmq.listener.not-retryable-exceptions} and are then loaded by name. Listener methods and their
 * payload types are declared by {@link RmqListenerAotProcessor}, bean by bean.
 */
public class RmqRuntimeHints implements RuntimeHintsRegistrar {

    /** Where rmq-core keeps its scripts. */
    static final String SCRIPTS = "dev/rmq/internal/script/*.lua";

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        hints.resources().registerPattern(SCRIPTS);
        for (Class<? extends Throwable> type : RmqProperties.Listener.NOT_RETRYABLE) {
            hints.reflection().registerType(type);
        }
    }
}
