package dev.rmq.internal.script;

import org.jspecify.annotations.Nullable;
import org.redisson.Redisson;
import org.redisson.api.FunctionMode;
import org.redisson.api.FunctionResult;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.protocol.RedisCommand;
import org.redisson.command.CommandAsyncExecutor;
import org.redisson.connection.ConnectionManager;
import org.redisson.config.NameMapper;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Sends one script call, by FCALL or EVALSHA, through Redisson's command executor with its arguments already bytes.
 * Redisson's {@code RFunction} and {@code RScript} encode every argument once more: they ask of each whether it is
 * a Redisson object to store by reference, and wrap it for the codec, which for a call of many small arguments (a
 * send of many messages, a poll that ends a batch) is work per argument that the executor does not need. The keys
 * are mapped by the client's {@link NameMapper}, as those classes map them. A client that is not Redisson's own is
 * called through them.
 */
final class ScriptInvoker {

    private static final RedisCommand<Object> FCALL = listReply(FunctionResult.LIST.getCommand());
    /** As RScript makes it: the list reply's command, renamed. */
    private static final RedisCommand<Object> EVALSHA = new RedisCommand<>(
            listReply(RScript.ReturnType.LIST.getCommand()), "EVALSHA");

    private final RedissonClient redisson;
    private final @Nullable CommandAsyncExecutor executor;
    private final @Nullable NameMapper names;

    ScriptInvoker(RedissonClient redisson) {
        this.redisson = redisson;
        this.executor = redisson instanceof Redisson own ? own.getCommandExecutor() : null;
        this.names = executor == null ? null : executor.getServiceManager().getNameMapper();
    }

    /** Calls Redis Function {@code function} on {@code keys}, routed by {@code route}. */
    CompletableFuture<Object> fcall(String route, String function, List<Object> keys, byte[][] argv) {
        if (executor == null) {
            return redisson.getFunction(ArgumentCodec.INSTANCE).<Object>callAsync(route, FunctionMode.WRITE, function,
                    FunctionResult.LIST, keys, ArgumentCodec.wrap(argv)).toCompletableFuture();
        }
        Object[] params = new Object[2 + keys.size() + argv.length];
        params[0] = function;
        params[1] = keys.size();
        int at = mapKeys(keys, params, 2);
        System.arraycopy(argv, 0, params, at, argv.length);
        return executor.<Object, Object>writeAsync(route, ArgumentCodec.INSTANCE, FCALL, params).toCompletableFuture();
    }

    /** Runs the loaded script {@code sha} on {@code keys}, routed by {@code route}. */
    CompletableFuture<Object> evalSha(String route, String sha, List<Object> keys, byte[][] argv) {
        if (executor == null) {
            return redisson.getScript(ArgumentCodec.INSTANCE).<Object>evalShaAsync(route, RScript.Mode.READ_WRITE,
                    sha, RScript.ReturnType.LIST, keys, ArgumentCodec.wrap(argv)).toCompletableFuture();
        }
        Object[] mappedKeys = new Object[keys.size()];
        mapKeys(keys, mappedKeys, 0);
        return executor.<Object, Object>evalWriteAsync(mapped(route), ArgumentCodec.INSTANCE, EVALSHA, sha,
                List.of(mappedKeys), (Object[]) argv).toCompletableFuture();
    }

    /** Puts {@code keys}, mapped, into {@code into} from {@code at} on; returns the index after them. */
    private int mapKeys(List<Object> keys, Object[] into, int at) {
        for (Object key : keys) {
            into[at++] = key instanceof String name ? mapped(name) : key;
        }
        return at;
    }

    /** A command whose reply is a list, typed as the executor's reply: each call's decode reads it. */
    @SuppressWarnings("unchecked")
    private static RedisCommand<Object> listReply(RedisCommand<?> command) {
        return (RedisCommand<Object>) command;
    }

    /**
     * Which master serves {@code route}: an object that is the same for every key on that master, or null when the
     * client is not Redisson's own and cannot tell.
     */
    @Nullable Object masterOf(String route) {
        if (executor == null) {
            return null;
        }
        ConnectionManager connections = executor.getConnectionManager();
        return connections.getEntry(connections.calcSlot(mapped(route)));
    }

    /** {@code name} as Redisson's name mapper maps the keys of every call, so that an ACL written for them fits. */
    String mapped(String name) {
        return names == null ? name : names.map(name);
    }
}
