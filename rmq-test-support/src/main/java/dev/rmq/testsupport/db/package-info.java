/**
 * Database servers for tests, each a process of its own on a free loopback port with a data directory of its own,
 * stopped by pid when closed or when the JVM exits: never the machine's own servers.
 */
@NullMarked
package dev.rmq.testsupport.db;

import org.jspecify.annotations.NullMarked;
