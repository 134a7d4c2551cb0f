//! Integration tests: the real server on port 0 against this machine's Postgres and Redis, and
//! (the tests of the line and the seat map, and the failover test) against real Redis Clusters
//! started on spare ports of this machine.

mod accounts;
mod admission;
mod autorate;
mod binding;
mod checkout;
mod clients;
mod cluster;
mod events;
mod failover;
mod faults;
mod forms;
mod fuzz;
mod gate;
mod helpers;
mod holds;
mod languages;
mod moving;
mod openapi;
mod opening;
mod operator;
mod operators;
mod ops;
mod pages;
mod payments;
mod places;
mod presence;
mod progress;
mod queue;
mod redis_lock;
mod report;
mod rest;
mod seatmap;
mod sessions;
mod shedding;
mod signin;
mod soldout;
mod startup;
mod stripe;
mod tokens;
mod traces;
