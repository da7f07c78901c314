# Right, written differently: the row maximum taken without keepdim and put back with
# torch.unsqueeze, the result's dimension removed with torch.squeeze: shape operations, which every
# rule allows, around the same arithmetic as the solution's.
def logsumexp(z, dim=-1):
    """log(sum(exp(z))) along `dim`, without overflow."""
    work = z if z.dtype == torch.float64 else z.float()
    peak = torch.unsqueeze(work.detach().amax(dim), dim)
    peak = torch.where(torch.isfinite(peak), peak, torch.zeros_like(peak))
    total = torch.log(torch.exp(work - peak).sum(dim, keepdim=True)) + peak
    return torch.squeeze(total, dim).to(z.dtype)
