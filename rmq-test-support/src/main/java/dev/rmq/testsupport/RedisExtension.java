package dev.rmq.testsupport;

import dev.rmq.embedded.RedisServer;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Injects Redis into test constructors, lifecycle methods and test methods:
 * <ul>
 *   <li>{@link RedisServer}: one standalone server per test class, closed after the class;</li>
 *   <li>{@link RedisCluster}: the JVM-wide {@link RedisTestServers#sharedCluster()}.</li>
 * </ul>
 *
 * <pre>{@code
 * @ExtendWith(RedisExtension.class)
 * class QueueTests {
 *     @Test void delivers(RedisServer redis) { ... redis.address() ... }
 * }
 * }</pre>
 */
public final class RedisExtension implements ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(RedisExtension.class);

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        Class<?> type = parameterContext.getParameter().getType();
        return type == RedisServer.class || type == RedisCluster.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        if (parameterContext.getParameter().getType() == RedisCluster.class) {
            return RedisTestServers.sharedCluster();
        }
        // Stored in the class-level context: JUnit closes AutoCloseable store values when that context ends.
        return classContext(extensionContext).getStore(NAMESPACE)
                .computeIfAbsent(RedisServer.class, key -> RedisServer.start(), RedisServer.class);
    }

    private static ExtensionContext classContext(ExtensionContext context) {
        ExtensionContext current = context;
        while (current.getTestMethod().isPresent() && current.getParent().isPresent()) {
            current = current.getParent().get();
        }
        return current;
    }
}
