package dev.rmq.server;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/** The server is an rmq application like any other: it uses rmq's public API, and its packages stay apart. */
class ServerArchitectureTests {

    private static final JavaClasses SERVER = new ClassFileImporter().importPath(Path.of("target", "classes"));

    @Test
    void theServerUsesOnlyThePublicApiOfRmq() {
        noClasses().should().dependOnClassesThat().resideInAPackage("dev.rmq.internal..").check(SERVER);
    }

    @Test
    void itsPackagesDependOnEachOtherWithoutCycles() {
        slices().matching("dev.rmq.server.(**)").should().beFreeOfCycles().check(SERVER);
    }

    @Test
    void thePullerKnowsNothingOfHttp() {
        noClasses().that().resideInAPackage("dev.rmq.server.pull..").should().dependOnClassesThat()
                .resideInAnyPackage("org.springframework.web..", "org.springframework.http..", "jakarta.servlet..",
                        "dev.rmq.server.api..")
                .check(SERVER);
    }
}
