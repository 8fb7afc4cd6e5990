/**
 * The pull consumer behind {@link dev.rmq.pull.RmqPuller}: a {@link dev.rmq.internal.pull.Puller} over one
 * {@link dev.rmq.internal.pull.PullSource} per topic, each a slot owner of its topic's assignment that polls its
 * slots with the container's own script calls and keeps the deliveries it handed out until they are ended.
 */
package dev.rmq.internal.pull;
