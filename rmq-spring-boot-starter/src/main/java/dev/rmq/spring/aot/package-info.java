/**
 * Hints for ahead-of-time builds and native images: what rmq reaches by reflection or as resources.
 */
package dev.rmq.spring.aot;
