package dev.rmq.architecture;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shape of rmq-core, checked on its compiled classes: what users may import, what stays internal, and what
 * may depend on what. {@code docs/architecture.md} explains the rules.
 */
class ArchitectureTests {

    /** The packages users import; everything else of rmq-core is under {@code dev.rmq.internal}. */
    static final Set<String> API_PACKAGES = Set.of("dev.rmq", "dev.rmq.admin", "dev.rmq.codec", "dev.rmq.consumer", "dev.rmq.coordination",
            "dev.rmq.dead", "dev.rmq.events", "dev.rmq.exceptions", "dev.rmq.inspect", "dev.rmq.journal", "dev.rmq.metrics", "dev.rmq.producer",
            "dev.rmq.pull", "dev.rmq.schedule", "dev.rmq.topic");

    private static final JavaClasses CORE = new ClassFileImporter().importPath(Path.of("target", "classes"));

    @Test
    void everyClassIsInAnApiPackageOrUnderInternal() {
        classes().should(resideInApiOrInternal()).check(CORE);
    }

    @Test
    void packagesDependOnEachOtherWithoutCycles() {
        slices().matching("dev.(**)").should().beFreeOfCycles().check(CORE);
    }

    @Test
    void theCoreImportsNoSpring() {
        noClasses().should().dependOnClassesThat().resideInAPackage("org.springframework..").check(CORE);
    }

    @Test
    void theApiShowsNoInternalTypeInWhatItDeclaresPublicly() {
        classes().that(inApi()).and().arePublic().should(exposeNoInternalType()).check(CORE);
    }

    @Test
    void internalPackagesNeverReachBackToTheClientThatAssemblesThem() {
        noClasses().that().resideInAPackage("dev.rmq.internal..").should().dependOnClassesThat()
                .resideInAPackage("dev.rmq").check(CORE);
    }

    /**
     * Each package has a package-info that says what lives there and is {@code @NullMarked}: the build's NullAway
     * check holds only such packages to their {@code @Nullable}s, so a package without one would go unchecked.
     */
    @Test
    void everyPackageOfEveryModuleSaysWhatLivesThereAndIsNullMarked() throws IOException {
        List<String> missing = new ArrayList<>();
        List<String> unmarked = new ArrayList<>();
        try (Stream<Path> modules = Files.list(Path.of(".."))) {
            for (Path sources : modules.map(m -> m.resolve("src/main/java")).filter(Files::isDirectory).toList()) {
                try (Stream<Path> files = Files.walk(sources)) {
                    for (Path folder : files.filter(Files::isDirectory).toList()) {
                        boolean hasJava;
                        try (Stream<Path> inside = Files.list(folder)) {
                            hasJava = inside.anyMatch(f -> f.toString().endsWith(".java"));
                        }
                        String where = sources.getParent().getParent().getParent().getFileName() + ": "
                                + sources.relativize(folder);
                        Path info = folder.resolve("package-info.java");
                        if (hasJava && !Files.exists(info)) {
                            missing.add(where);
                        } else if (hasJava && !Files.readString(info).contains("@NullMarked")) {
                            unmarked.add(where);
                        }
                    }
                }
            }
        }
        assertThat(missing).as("packages without a package-info.java").isEmpty();
        assertThat(unmarked).as("packages whose package-info.java is not @NullMarked").isEmpty();
    }

    private static DescribedPredicate<JavaClass> inApi() {
        return DescribedPredicate.describe("are in an API package", c -> API_PACKAGES.contains(c.getPackageName()));
    }

    private static ArchCondition<JavaClass> resideInApiOrInternal() {
        return new ArchCondition<>("reside in an API package " + API_PACKAGES + " or under dev.rmq.internal") {
            @Override
            public void check(JavaClass item, ConditionEvents events) {
                String pkg = item.getPackageName();
                boolean ok = API_PACKAGES.contains(pkg) || pkg.startsWith("dev.rmq.internal.");
                events.add(new SimpleConditionEvent(item, ok, item.getName() + " is in " + pkg));
            }
        };
    }

    private static ArchCondition<JavaClass> exposeNoInternalType() {
        return new ArchCondition<>("expose no dev.rmq.internal type in a public or protected signature") {
            @Override
            public void check(JavaClass item, ConditionEvents events) {
                List<String> leaks = new ArrayList<>();
                item.getRawSuperclass().filter(ArchitectureTests::isInternal)
                        .ifPresent(s -> leaks.add("extends " + s.getName()));
                item.getRawInterfaces().stream().filter(ArchitectureTests::isInternal)
                        .forEach(i -> leaks.add("implements " + i.getName()));
                for (JavaCodeUnit unit : item.getCodeUnits()) {
                    if (!visible(unit.getModifiers())) {
                        continue;
                    }
                    if (isInternal(unit.getRawReturnType())) {
                        leaks.add(unit.getFullName() + " returns " + unit.getRawReturnType().getName());
                    }
                    unit.getRawParameterTypes().stream().filter(ArchitectureTests::isInternal)
                            .forEach(p -> leaks.add(unit.getFullName() + " takes " + p.getName()));
                }
                for (JavaField field : item.getFields()) {
                    if (visible(field.getModifiers()) && isInternal(field.getRawType())) {
                        leaks.add(field.getFullName() + " is a " + field.getRawType().getName());
                    }
                }
                events.add(new SimpleConditionEvent(item, leaks.isEmpty(), item.getName() + ": " + leaks));
            }
        };
    }

    private static boolean visible(Set<JavaModifier> modifiers) {
        return modifiers.contains(JavaModifier.PUBLIC) || modifiers.contains(JavaModifier.PROTECTED);
    }

    private static boolean isInternal(JavaClass type) {
        return type.getPackageName().startsWith("dev.rmq.internal");
    }
}
