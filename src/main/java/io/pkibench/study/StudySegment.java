package io.pkibench.study;

import io.pkibench.engine.IterationStarts;
import io.pkibench.plan.Segment;
import io.pkibench.results.AgentRecord;

/**
 * {@code study --segment I/N --target URL --concurrency C}: this process is agent I of N of a study
 * whose service runs elsewhere. It starts no service and probes nothing (each agent probing alone
 * would choose its own level): every step is measured at the level the coordinator gave ({@code
 * concurrency}), this agent running its share of the workers, every step's iterations on the one
 * timetable of {@code starts} (shared by all the study's steps, so step k of every agent covers the
 * same intervals). {@code agent}: this agent's record (its host, its clock against the target's).
 */
public record StudySegment(
    Segment segment, int concurrency, IterationStarts starts, AgentRecord agent) {}
