package dev.rmq.embedded;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Every server this JVM started, so one shutdown hook can kill whatever a failed or careless test
 * left running; without it an aborted run leaves redis-server processes holding ports forever.
 */
final class ServerRegistry {

    private static final Set<RedisServer> SERVERS = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(ServerRegistry::destroyAll, "rmq-redis-reaper"));
    }

    private ServerRegistry() {
    }

    static void register(RedisServer server) {
        SERVERS.add(server);
    }

    static void deregister(RedisServer server) {
        SERVERS.remove(server);
    }

    private static void destroyAll() {
        List<RedisServer> remaining = new ArrayList<>(SERVERS);
        // SIGKILL all first and wait afterwards, so exit is not delayed by N sequential waits.
        remaining.forEach(RedisServer::destroyForcibly);
        remaining.forEach(RedisServer::awaitExitAndDeleteDir);
    }
}
