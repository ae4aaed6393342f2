package io.pkibench.plan;

import java.util.List;

/** How load is offered. Closed loop now; the open (fixed arrival rate) model is a sibling record. */
@com.fasterxml.jackson.annotation.JsonTypeInfo(use = com.fasterxml.jackson.annotation.JsonTypeInfo.Id.NAME, property = "model")
@com.fasterxml.jackson.annotation.JsonSubTypes({
    @com.fasterxml.jackson.annotation.JsonSubTypes.Type(value = LoadModel.Closed.class, name = "closed")})
public sealed interface LoadModel {

  /** {@code levels} = the number of workers of each level, each starting its next operation when the last ends. */
  record Closed(List<Integer> concurrency) implements LoadModel {
    public Closed {
      concurrency = List.copyOf(concurrency);
    }
  }
}
