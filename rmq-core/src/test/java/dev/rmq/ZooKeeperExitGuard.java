package dev.rmq;

import org.apache.zookeeper.util.ServiceUtils;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Keeps a ZooKeeper server that runs inside the test JVM from ending it. ZooKeeper asks for {@code System.exit} when
 * one of its servers cannot start or go on ({@code ServiceUtils.requestSystemExit}); in a test JVM that kills every
 * test class still to run, and leaves only "the forked VM terminated" behind. With {@code LOG_ONLY}, ZooKeeper logs
 * the request with its code, and the test that needed the server fails with its own error.
 */
public final class ZooKeeperExitGuard implements LauncherSessionListener {

    @Override
    public void launcherSessionOpened(LauncherSession session) {
        ServiceUtils.setSystemExitProcedure(ServiceUtils.LOG_ONLY);
    }
}
